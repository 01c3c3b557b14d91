// The labelling page's keyboard shortcuts (listed in labeler.labelling.views.SHORTCUTS).
// Keys move the page's state (focus, highlight, level) and call the page's actions (`page`).
// Choosing an option never moves the focus: Tab does, always. In an open-coding study `c`
// goes into the focused dimension's code box, whose keys are label_codes.js's (`codes`).

import { byId } from "./dom.js";
import { MAX_NUMBERED, hasChildren, optionKey, optionsAt, twoDigits } from "./label_scheme.js";

const MODIFIER_KEYS = ["Shift", "Control", "Alt", "Meta", "CapsLock"];

export function labelKeys({ dims, state, codes, skipReasons, page }) {
  // The first digit of a two-digit option number, waiting for the second (no time limit:
  // any other key lets it go). On the state, so that the options can show what it starts.
  state.pendingDigit = null; // {dim, level, digit}

  function pickNumber(dim, options, number) {
    const key = optionKey(options.length, number - 1);
    if (number >= 1 && number <= Math.min(options.length, MAX_NUMBERED)) {
      state.highlight[dim.key] = number - 1;
      page.choose(dim, options[number - 1]);
    } else {
      page.setStatus(dim.name + " has no option " + (key || number) + " here.", true);
    }
  }

  function digitCancel() {
    if (!state.pendingDigit) return false;
    state.pendingDigit = null;
    page.setStatus("");
    return true;
  }

  function digitKey(dim, options, digit) {
    if (!twoDigits(options.length)) {
      pickNumber(dim, options, digit);
      return;
    }
    const pending = state.pendingDigit;
    if (pending && pending.dim === dim && pending.level === state.level[dim.key]) {
      digitCancel();
      pickNumber(dim, options, pending.digit * 10 + digit);
      return;
    }
    const count = Math.min(options.length, MAX_NUMBERED);
    const first = Math.max(digit * 10, 1);
    if (first > count) {
      page.setStatus(
        dim.name + ": its options have two digits, 01 to " + optionKey(count, count - 1) +
          "; none starts with " + digit + ".",
        true
      );
      return;
    }
    state.pendingDigit = { dim: dim, level: state.level[dim.key], digit: digit };
    const last = Math.min(digit * 10 + 9, count);
    page.setStatus(
      digit + "… and a second digit: " + optionKey(count, first - 1) + " to " +
        optionKey(count, last - 1) + "."
    );
  }

  function labelKey(event) {
    const key = event.key;
    // On a focused link or button, Tab, Enter and Space keep their usual meaning.
    const onControl = event.target !== document.body && event.target.matches("a, button, input");
    if (onControl && (key === "Tab" || key === "Enter" || key === " ")) return;
    const isDigit = /^[0-9]$/.test(key);
    // Any other key lets a waiting first digit go; Esc does only that.
    if (!isDigit && !MODIFIER_KEYS.includes(key) && digitCancel() && key === "Escape") {
      event.preventDefault();
      page.render();
      return;
    }
    const dim = dims[state.focus];
    const options = optionsAt(dim, state.level[dim.key]);
    if (isDigit) {
      digitKey(dim, options, Number(key));
    } else if (key === "Tab") {
      // No wrapping: after the last dimension comes the note, never the first dimension again.
      if (event.shiftKey) {
        state.focus = Math.max(state.focus - 1, 0);
      } else if (state.focus < dims.length - 1) {
        state.focus += 1;
      } else {
        event.preventDefault();
        byId("note").focus();
        return;
      }
    } else if ((key === "ArrowDown" || key === "ArrowUp") && event.shiftKey) {
      byId("definition").scrollBy({ top: key === "ArrowDown" ? 80 : -80 });
    } else if (key === "ArrowDown" || key === "ArrowUp") {
      const step = key === "ArrowDown" ? 1 : -1;
      const current = state.highlight[dim.key];
      state.highlight[dim.key] = current < 0
        ? (step > 0 ? 0 : options.length - 1)
        : (current + step + options.length) % options.length;
    } else if (key === " ") {
      const highlighted = options[state.highlight[dim.key]];
      if (highlighted) page.choose(dim, highlighted);
    } else if (key === "ArrowRight") {
      const highlighted = options[state.highlight[dim.key]];
      if (highlighted && hasChildren(dim, highlighted)) {
        state.level[dim.key] = highlighted.path;
        state.highlight[dim.key] = -1;
      }
    } else if (key === "Backspace" || key === "Escape" || key === "ArrowLeft") {
      if (!page.up(dim) && key === "Escape" && state.current && state.current.revising) {
        page.loadNext();
      }
    } else if (key === "Delete") {
      page.clearDimension(dim);
    } else if (key === "Enter") {
      page.submit();
    } else if (key === "h") {
      if (!byId("history-link").hidden) byId("history-link").click();
    } else if (key === "u") {
      byId("unsure").checked = !byId("unsure").checked;
    } else if (key === "n") {
      byId("note").focus();
    } else if (key === "c" && codes) {
      codes.focus(dim);
    } else if (key === "s") {
      page.enterSkip();
    } else if (key === "p") {
      page.previous();
    } else {
      return;
    }
    event.preventDefault();
    page.render();
  }

  function skipKey(event) {
    const key = event.key;
    if (/^[1-9]$/.test(key) && Number(key) <= skipReasons.length) {
      page.skip(skipReasons[Number(key) - 1]);
    } else if (key === "Escape" || key === "Backspace") {
      page.setMode("label");
    } else {
      return;
    }
    event.preventDefault();
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.metaKey) return;
    const target = event.target;
    if (!byId("shortcuts").hidden) {
      if (event.key === "Escape" || event.key === "?") {
        event.preventDefault();
        page.toggleHelp(false);
      }
      return;
    }
    // Choosing between two versions: its buttons take Tab and Enter as buttons do.
    if (!byId("conflict").hidden) {
      if (event.key === "Escape") {
        event.preventDefault();
        page.closeConflict();
      }
      return;
    }
    const codeBox = codes ? codes.boxOf(target) : null;
    if (codeBox) {
      if (state.mode === "label" && !state.busy) codes.key(event, codeBox);
      return;
    }
    if (target.matches("textarea, input:not([type=checkbox]), select")) {
      if (target === byId("note") && event.key === "Tab" && event.shiftKey && state.mode === "label") {
        // Back from the note to the last dimension.
        event.preventDefault();
        target.blur();
        state.focus = dims.length - 1;
        page.render();
      } else if (event.key === "Enter" && event.ctrlKey) {
        event.preventDefault();
        target.blur();
        page.submit();
      } else if (event.key === "Escape") {
        event.preventDefault();
        target.blur();
      }
      return;
    }
    if (event.ctrlKey) return;
    if (event.key === "?") {
      event.preventDefault();
      page.toggleHelp(true);
      return;
    }
    if (state.busy) {
      if (event.key === "Enter") event.preventDefault();
      return;
    }
    if (state.mode === "label") labelKey(event);
    else if (state.mode === "skip") skipKey(event);
    else if ((state.mode === "done" || state.mode === "waiting") && event.key === "p") {
      event.preventDefault();
      page.previous();
    } else if (state.mode === "waiting" && event.key === "l") {
      event.preventDefault();
      page.loadNext("Looking again…");
    }
  });

  return { digitCancel: digitCancel };
}
