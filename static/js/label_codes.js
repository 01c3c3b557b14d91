// Open coding on the labelling page: each dimension's codes (state.codes, dimension key ->
// [codes as written]) and the box they are written in, with the codes in use offered while
// typing (the study's codes API: the annotator's own, or everyone's when the study shares
// them). Everything works from the keyboard (labeler.labelling.views.CODE_SHORTCUTS):
// Enter adds, Backspace in an empty box removes the last code, the arrows pick a code offered,
// Tab goes on to the next dimension's box, Esc leaves.
//
// A dimension's box is made once and moved into the focused dimension at each render, so
// that typing survives every redraw; the page puts the focus back (`refocus`).

import { api } from "./api.js";
import { el } from "./dom.js";

const OFFERED = 8;
const TYPING_PAUSE_MS = 120;

export function normalised(text) {
  return text.split(/\s+/).filter(Boolean).join(" ");
}

export function labelCodes({ dims, state, config, page }) {
  const boxes = new Map();

  function codesOf(dim) {
    return state.codes[dim.key];
  }

  function makeBox(dim) {
    const listId = "code-offers-" + dim.key;
    const input = el("input", {
      type: "text",
      className: "code-input",
      id: "code-" + dim.key,
      "data-testid": "code-input-" + dim.key,
      autocomplete: "off",
      spellcheck: "false",
      role: "combobox",
      "aria-autocomplete": "list",
      "aria-expanded": "false",
      "aria-controls": listId,
      "aria-label": "Write a code for " + dim.name,
      placeholder: "write a code… (c)",
    });
    const list = el("ul", {
      className: "code-offers",
      id: listId,
      role: "listbox",
      "aria-label": "Codes in use",
      "data-testid": "code-offers-" + dim.key,
      hidden: true,
    });
    const box = { dim: dim, input: input, list: list, offers: [], highlight: -1, asked: 0, timer: null };
    box.element = el("div", { className: "code-entry", "data-testid": "code-entry-" + dim.key }, input, list);
    // The box's clicks are its own: they do not refocus the dimension around it.
    box.element.addEventListener("click", function (event) {
      event.stopPropagation();
    });
    input.addEventListener("input", function () {
      clearTimeout(box.timer);
      box.timer = setTimeout(function () {
        offer(box);
      }, TYPING_PAUSE_MS);
    });
    return box;
  }

  dims.forEach(function (dim) {
    boxes.set(dim.key, makeBox(dim));
  });

  function boxOf(target) {
    for (const box of boxes.values()) if (box.input === target) return box;
    return null;
  }

  function drawOffers(box) {
    const shown = box.offers.length > 0;
    box.list.hidden = !shown;
    box.input.setAttribute("aria-expanded", shown ? "true" : "false");
    box.list.replaceChildren.apply(box.list, box.offers.map(function (name, index) {
      const item = el("li", {
        className: "code-offer" + (index === box.highlight ? " highlighted" : ""),
        role: "option",
        id: "code-offer-" + box.dim.key + "-" + index,
        "aria-selected": index === box.highlight ? "true" : "false",
        "data-code": name,
        text: name,
      });
      // Pressed, not clicked: the box keeps the focus.
      item.addEventListener("mousedown", function (event) {
        event.preventDefault();
        add(box, name);
      });
      return item;
    }));
    if (box.highlight >= 0) box.input.setAttribute("aria-activedescendant", "code-offer-" + box.dim.key + "-" + box.highlight);
    else box.input.removeAttribute("aria-activedescendant");
  }

  function closeOffers(box) {
    box.asked += 1; // an answer still on its way is not shown
    box.offers = [];
    box.highlight = -1;
    drawOffers(box);
  }

  async function offer(box) {
    const asked = ++box.asked;
    const query = new URLSearchParams({ dimension: box.dim.key, q: normalised(box.input.value), limit: String(OFFERED + config.codesPerDimension) });
    let answer;
    try {
      answer = await api("GET", config.urls.codes + "?" + query.toString());
    } catch (_) {
      return; // no codes offered; writing one still works
    }
    if (asked !== box.asked) return;
    const given = new Set(codesOf(box.dim).map(function (code) {
      return code.toLowerCase();
    }));
    box.offers = answer.results
      .map(function (code) {
        return code.name;
      })
      .filter(function (name) {
        return !given.has(name.toLowerCase());
      })
      .slice(0, OFFERED);
    box.highlight = -1;
    drawOffers(box);
  }

  // The code typed (or offered) joins the dimension's codes, unless it breaks a rule the
  // server would refuse it by.
  function add(box, text) {
    const code = normalised(text);
    const codes = codesOf(box.dim);
    if (!code) return false;
    if (code.length > config.codeMax) {
      page.setStatus(box.dim.name + ": a code takes at most " + config.codeMax + " characters (this one has " + code.length + ").", true);
      return false;
    }
    if (codes.some(function (given) { return given.toLowerCase() === code.toLowerCase(); })) {
      page.setStatus(box.dim.name + ": “" + code + "” is given already.", true);
      return false;
    }
    if (codes.length >= config.codesPerDimension) {
      page.setStatus(box.dim.name + ": at most " + config.codesPerDimension + " codes.", true);
      return false;
    }
    codes.push(code);
    delete state.errors["labels." + box.dim.key];
    box.input.value = "";
    closeOffers(box);
    page.setStatus(box.dim.name + ": added “" + code + "”.");
    page.render();
    return true;
  }

  function remove(dim, code) {
    const codes = codesOf(dim);
    const at = codes.indexOf(code);
    if (at < 0) return;
    codes.splice(at, 1);
    page.setStatus(dim.name + ": removed “" + code + "”.");
    page.render();
  }

  function focus(dim) {
    const index = dims.indexOf(dim);
    if (state.focus !== index) {
      state.focus = index;
      page.render();
    }
    const box = boxes.get(dim.key);
    box.input.focus();
    offer(box);
  }

  function move(box, step) {
    if (!box.offers.length) return;
    box.highlight = box.highlight < 0
      ? (step > 0 ? 0 : box.offers.length - 1)
      : (box.highlight + step + box.offers.length) % box.offers.length;
    drawOffers(box);
  }

  // Every code typed but not added yet joins its dimension: what is in a box is meant.
  function commitAll() {
    let added = true;
    boxes.forEach(function (box) {
      if (normalised(box.input.value)) added = add(box, box.input.value) && added;
    });
    return added;
  }

  function key(event, box) {
    const key = event.key;
    const index = dims.indexOf(box.dim);
    if (key === "Enter" && event.ctrlKey) {
      event.preventDefault();
      if (commitAll()) {
        box.input.blur();
        page.submit();
      }
    } else if (key === "Enter") {
      event.preventDefault();
      const chosen = box.highlight >= 0 ? box.offers[box.highlight] : box.input.value;
      if (!normalised(chosen)) page.setStatus("Type a code, then Enter adds it; Esc leaves the code, Ctrl+Enter submits.");
      else add(box, chosen);
    } else if (key === "Backspace" && box.input.value === "") {
      event.preventDefault();
      const codes = codesOf(box.dim);
      if (codes.length) remove(box.dim, codes[codes.length - 1]);
    } else if (key === "ArrowDown" || key === "ArrowUp") {
      event.preventDefault();
      move(box, key === "ArrowDown" ? 1 : -1);
    } else if (key === "Escape") {
      event.preventDefault();
      if (box.offers.length) closeOffers(box);
      else box.input.blur();
    } else if (key === "Tab") {
      event.preventDefault();
      if (normalised(box.input.value) && !add(box, box.input.value)) return;
      closeOffers(box);
      if (event.shiftKey) {
        if (index > 0) focus(dims[index - 1]);
      } else if (index < dims.length - 1) {
        focus(dims[index + 1]);
      } else {
        page.focusNote();
      }
    }
  }

  // A new item: every box empty, nothing offered.
  function reset() {
    boxes.forEach(function (box) {
      box.input.value = "";
      closeOffers(box);
    });
  }

  function chips(dim) {
    return codesOf(dim).map(function (code) {
      const button = el("button", { type: "button", className: "chip-remove", "aria-label": "remove the code " + code, title: "remove", text: "×" });
      button.addEventListener("click", function (event) {
        event.stopPropagation();
        remove(dim, code);
      });
      return el("span", { className: "chip code", "data-code": code }, el("span", { className: "code-name", text: code }), button);
    });
  }

  return {
    box: function (dim) {
      return boxes.get(dim.key).element;
    },
    boxOf: boxOf,
    chips: chips,
    commitAll: commitAll,
    focus: focus,
    key: key,
    reset: reset,
  };
}
