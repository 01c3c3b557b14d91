// The labelling page's controls column: a section per dimension, the note with its counter,
// and the definition of the category in view. Only the focused dimension shows its options;
// the others show one line with what is chosen, so that every choice, the note and Submit
// fit in the window beside the report, and the definition takes the room left. It draws
// from the page's state and changes only which dimension has the focus and which option is
// highlighted; choosing is the page's (`onChoose`). In an open-coding study (`codes`, see
// label_codes.js) each dimension also shows its codes, and the focused one its code box.

import { byId, el } from "./dom.js";
import { hasChildren, nameOf, optionKey, optionsAt } from "./label_scheme.js";

// From this share of the limit on, the note shows how many characters it has.
const NOTE_COUNT_FROM = 0.8;

export function labelControls({ dims, state, noteMax, onChoose, codes }) {
  function render() {
    // A code box keeps the focus, and what is typed in it, through the redraw.
    const typing = codes ? codes.boxOf(document.activeElement) : null;
    const caret = typing ? [typing.input.selectionStart, typing.input.selectionEnd] : null;
    byId("dimensions").replaceChildren.apply(
      byId("dimensions"),
      dims.map(function (dim, index) {
        return renderDimension(dim, index);
      })
    );
    if (typing && typing.input.isConnected) {
      typing.input.focus({ preventScroll: true });
      typing.input.setSelectionRange(caret[0], caret[1]);
    }
    keepRows();
    renderDefinition();
    byId("note").closest(".field").classList.toggle("has-error", Boolean(state.errors.note));
    document.querySelector("[data-error-for=note]").textContent = state.errors.note || "";
    renderNoteCount();
    if (state.mode !== "label") return;
    // The whole focused dimension when it fits, and in any case its highlighted option.
    const focused = document.querySelector(".dim.focused");
    if (focused) bringIntoView(focused, byId("dimensions"));
    const highlighted = document.querySelector(".dim.focused .option.highlighted");
    if (highlighted) bringIntoView(highlighted, highlighted.closest("ol.options"));
  }

  // When room runs short, the focused options shrink and scroll, but keep about three rows
  // (all of them, when there are fewer).
  function keepRows() {
    const list = document.querySelector(".dim.focused ol.options");
    if (!list) return;
    list.style.minHeight = "0";
    const row = list.firstElementChild ? list.firstElementChild.offsetHeight : 0;
    list.style.minHeight = Math.min(list.scrollHeight, 3 * row) + "px";
  }

  function beside() {
    return getComputedStyle(byId("controls")).position === "sticky";
  }

  // Beside the report the column is all on screen: only its own lists scroll, never the
  // window (which would move the report). Below the report the window scrolls to it.
  function bringIntoView(element, list) {
    if (!beside()) {
      element.scrollIntoView({ block: "nearest" });
      return;
    }
    const box = element.getBoundingClientRect();
    const frame = list.getBoundingClientRect();
    // Whole pixels, rounded outwards: a fraction left over would cut the element's edge.
    if (box.top < frame.top) list.scrollTop -= Math.ceil(frame.top - box.top);
    else if (box.bottom > frame.bottom) {
      list.scrollTop += Math.ceil(Math.min(box.bottom - frame.bottom, box.top - frame.top));
    }
  }

  // The controls column sticks beside the report and ends at the bottom of the window, so
  // that all of it is on screen however far the report is scrolled.
  function fit() {
    const controls = byId("controls");
    if (!beside() || byId("label-columns").hidden) {
      controls.style.removeProperty("height");
      return;
    }
    const gap = parseFloat(getComputedStyle(controls).top) || 0;
    const top = Math.max(controls.getBoundingClientRect().top, gap);
    controls.style.height = Math.max(window.innerHeight - gap - top, 240) + "px";
  }

  function renderNoteCount() {
    const length = byId("note").value.length;
    const counter = byId("note-count");
    const over = length > noteMax;
    counter.hidden = length < noteMax * NOTE_COUNT_FROM;
    counter.textContent = length.toLocaleString("en") + " / " + noteMax.toLocaleString("en") +
      (over ? ", " + (length - noteMax).toLocaleString("en") + " too many" : "");
    counter.classList.toggle("error", over);
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
      className: "dim" + (focused ? " focused" : " folded") + (error ? " has-error" : ""),
      "data-dim": dim.key,
      "data-testid": "dim-" + dim.key,
      "aria-current": focused ? "true" : null,
    });
    section.addEventListener("click", function () {
      state.focus = index;
      render();
    });
    const hasOptions = dim.categories.length > 0;
    const rules = [];
    if (hasOptions) rules.push(dim.multiple ? "choose any" : "choose one");
    if (codes) rules.push(hasOptions ? "or write codes" : "write codes");
    rules.push(dim.required ? "required" : "optional");
    if (hasOptions && dim.leafOnly) rules.push("most specific only");

    const chosen = state.chosen[dim.key];
    const chosenLine = el("span", { className: "chosen", "data-testid": "chosen-" + dim.key });
    chosen.forEach(function (path) {
      chosenLine.append(el("span", { className: "chip", "data-path": path, text: nameOf(dim, path) }));
    });
    const codeChips = codes ? codes.chips(dim) : [];
    if (codeChips.length) chosenLine.append.apply(chosenLine, codeChips);
    if (!chosen.length && !codeChips.length) {
      chosenLine.append(el("span", { className: "muted", text: codes ? "nothing chosen or coded yet" : "nothing chosen yet" }));
    }
    section.append(
      el("h3", {}, el("span", { className: "dim-name", text: dim.name }), " ", chosenLine,
        el("span", { className: "rules", text: rules.join(" · ") }))
    );
    if (error) section.append(el("p", { className: "error small", "data-error-for": "labels." + dim.key, text: error }));
    if (!focused) return section;

    const level = state.level[dim.key];
    if (level) {
      section.append(
        el("p", { className: "crumbs small" },
          el("span", { className: "muted", text: "Inside " }),
          el("strong", { text: nameOf(dim, level) }),
          el("span", { className: "muted", text: " · Backspace goes up" }))
      );
    }

    const options = optionsAt(dim, level);
    const pending = state.pendingDigit && state.pendingDigit.dim === dim ? state.pendingDigit.digit : null;
    const list = el("ol", {
      className: "options",
      role: "listbox",
      "aria-label": dim.name,
      "aria-multiselectable": dim.multiple ? "true" : "false",
    });
    options.forEach(function (category, position) {
      const isChosen = chosen.includes(category.path);
      const within = chosen.some(function (path) {
        return path.startsWith(category.path + "/");
      });
      const key = optionKey(options.length, position);
      const candidate = pending !== null && key.length === 2 && key[0] === String(pending);
      const item = el("li", {
        className:
          "option" + (isChosen ? " chosen" : "") + (within ? " within" : "") +
          (position === state.highlight[dim.key] ? " highlighted" : "") +
          (candidate ? " candidate" : ""),
        role: "option",
        "aria-selected": isChosen ? "true" : "false",
        "data-path": category.path,
      });
      item.append(
        el("kbd", { text: key }),
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
    if (hasOptions || !codes) section.append(list);
    if (codes) section.append(codes.box(dim));
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
      if (dim.categories.length) {
        box.append(el("p", { className: "muted small", text: "↑ ↓ highlight an option to read its definition." }));
      }
      if (codes) {
        box.append(el("p", { className: "muted small", text: "c writes a code: the codes in use are offered as you type, Enter adds one, Backspace in the empty box removes the last." }));
      }
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
