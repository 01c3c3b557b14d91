// The labelling page's controls column: a section per dimension with its options, the note's
// error, and the definition of the category in view. It draws from the page's state and
// changes only which dimension has the focus and which option is highlighted; choosing is
// the page's (`onChoose`).

import { byId, el } from "./dom.js";
import { hasChildren, nameOf, optionsAt } from "./label_scheme.js";

export function labelControls({ dims, state, onChoose }) {
  function render() {
    byId("dimensions").replaceChildren.apply(
      byId("dimensions"),
      dims.map(function (dim, index) {
        return renderDimension(dim, index);
      })
    );
    renderDefinition();
    byId("note").closest(".field").classList.toggle("has-error", Boolean(state.errors.note));
    document.querySelector("[data-error-for=note]").textContent = state.errors.note || "";
    if (state.mode !== "label") return;
    // The whole focused dimension when it fits, and in any case its highlighted option.
    const focused = document.querySelector(".dim.focused");
    if (focused) focused.scrollIntoView({ block: "nearest" });
    const highlighted = document.querySelector(".dim.focused .option.highlighted");
    if (highlighted) highlighted.scrollIntoView({ block: "nearest" });
  }

  // The controls column sticks beside the report and ends at the bottom of the window (or of
  // the report, when that comes first), so the definition at its foot is always on screen;
  // its dimensions scroll on their own.
  function fit() {
    const controls = byId("controls");
    const style = getComputedStyle(controls);
    if (style.position !== "sticky" || byId("label-columns").hidden) {
      controls.style.removeProperty("height");
      return;
    }
    const gap = parseFloat(style.top) || 0;
    const top = Math.max(controls.getBoundingClientRect().top, gap);
    const bottom = Math.min(window.innerHeight - gap, byId("report").getBoundingClientRect().bottom);
    controls.style.height = Math.max(bottom - top, 240) + "px";
  }

  let fitPending = false;
  function fitSoon() {
    if (fitPending) return;
    fitPending = true;
    requestAnimationFrame(function () {
      fitPending = false;
      fit();
    });
  }
  window.addEventListener("scroll", fitSoon, { passive: true });
  window.addEventListener("resize", fitSoon);

  function renderDimension(dim, index) {
    const focused = index === state.focus && state.mode === "label";
    const error = state.errors["labels." + dim.key];
    const section = el("section", {
      className: "dim" + (focused ? " focused" : "") + (error ? " has-error" : ""),
      "data-dim": dim.key,
      "data-testid": "dim-" + dim.key,
      "aria-current": focused ? "true" : null,
    });
    section.addEventListener("click", function () {
      state.focus = index;
      render();
    });
    const rules = [dim.multiple ? "choose any" : "choose one", dim.required ? "required" : "optional"];
    if (dim.leafOnly) rules.push("most specific only");
    section.append(
      el("h3", {}, el("span", { className: "dim-name", text: dim.name }), " ",
        el("span", { className: "rules", text: rules.join(" · ") }))
    );

    const chosen = state.chosen[dim.key];
    const chosenLine = el("p", { className: "chosen", "data-testid": "chosen-" + dim.key });
    if (chosen.length) {
      chosen.forEach(function (path) {
        chosenLine.append(el("span", { className: "chip", "data-path": path, text: nameOf(dim, path) }));
      });
    } else {
      chosenLine.append(el("span", { className: "muted", text: "nothing chosen yet" }));
    }
    section.append(chosenLine);

    const level = state.level[dim.key];
    if (level) {
      section.append(
        el("p", { className: "crumbs small" },
          el("span", { className: "muted", text: "Inside " }),
          el("strong", { text: nameOf(dim, level) }),
          el("span", { className: "muted", text: " · Backspace goes up" }))
      );
    }

    const list = el("ol", {
      className: "options",
      role: "listbox",
      "aria-label": dim.name,
      "aria-multiselectable": dim.multiple ? "true" : "false",
    });
    optionsAt(dim, level).forEach(function (category, position) {
      const isChosen = chosen.includes(category.path);
      const within = chosen.some(function (path) {
        return path.startsWith(category.path + "/");
      });
      const highlighted = focused && position === state.highlight[dim.key];
      const item = el("li", {
        className:
          "option" + (isChosen ? " chosen" : "") + (within ? " within" : "") +
          (highlighted ? " highlighted" : ""),
        role: "option",
        "aria-selected": isChosen ? "true" : "false",
        "data-path": category.path,
      });
      item.append(
        el("kbd", { text: position < 99 ? String(position + 1) : "" }),
        el("span", { className: "option-name", text: category.name })
      );
      if (hasChildren(dim, category)) {
        item.append(el("span", { className: "more", title: "has sub-categories", text: "›" }));
      }
      item.addEventListener("click", function (event) {
        event.stopPropagation();
        state.focus = index;
        state.highlight[dim.key] = position;
        onChoose(dim, category);
      });
      list.append(item);
    });
    section.append(list);
    if (error) section.append(el("p", { className: "error small", "data-error-for": "labels." + dim.key, text: error }));
    return section;
  }

  function describedCategory(dim) {
    const options = optionsAt(dim, state.level[dim.key]);
    const highlighted = options[state.highlight[dim.key]];
    if (highlighted) return highlighted;
    if (state.level[dim.key]) return dim.byPath.get(state.level[dim.key]);
    const chosen = state.chosen[dim.key];
    return chosen.length ? dim.byPath.get(chosen[chosen.length - 1]) : null;
  }

  function renderDefinition() {
    const box = byId("definition");
    const dim = dims[state.focus];
    const category = dim && state.mode === "label" ? describedCategory(dim) : null;
    const described = dim && state.mode === "label" ? dim.key + ":" + (category ? category.path : "") : "";
    const changed = box.dataset.described !== described;
    box.dataset.described = described;
    if (!described) {
      box.replaceChildren();
    } else if (!category) {
      box.replaceChildren(el("h4", { text: dim.name }));
      if (dim.help) box.append(el("p", { text: dim.help }));
      box.append(el("p", { className: "muted small", text: "↑ ↓ highlight an option to read its definition." }));
    } else {
      box.replaceChildren.apply(box, categoryDescription(category));
    }
    if (changed) box.scrollTop = 0;
    box.classList.toggle("overflowing", box.scrollHeight > box.clientHeight + 1);
  }

  return { render: render, fit: fit };
}

function categoryDescription(category) {
  const parts = [
    el("h4", {}, category.name, " ", el("code", { className: "muted", text: category.path })),
  ];
  if (category.definition) parts.push(el("p", { text: category.definition }));
  if (category.include || category.exclude) {
    const criteria = el("dl", { className: "criteria" });
    if (category.include) criteria.append(el("dt", { text: "Choose it when" }), el("dd", { text: category.include }));
    if (category.exclude) criteria.append(el("dt", { text: "Not when" }), el("dd", { text: category.exclude }));
    parts.push(criteria);
  }
  if (category.examples && category.examples.length) {
    parts.push(el("p", { className: "small muted", text: "Examples" }));
    const list = el("ul", { className: "examples" });
    category.examples.forEach(function (example) {
      list.append(el("li", { text: example }));
    });
    parts.push(list);
  }
  return parts;
}
