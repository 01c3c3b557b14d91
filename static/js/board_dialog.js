// The code board's dialog: one <dialog>, its body built for each action; OK (Enter) runs the
// action, whose error shows in the dialog, which stays open; Esc closes it. Also the fields the
// actions build their bodies from.

import { errorText, state } from "./board_state.js";
import { byId, el } from "./dom.js";

export function openDialog(title, body, action, okText) {
  byId("dialog-title").textContent = title;
  byId("dialog-body").replaceChildren(...body);
  byId("dialog-error").textContent = "";
  byId("dialog-ok").textContent = (okText || "OK") + " (Enter)";
  state.dialogAction = action;
  byId("dialog").showModal();
  const box = byId("dialog-body");
  const first = ["input[type=radio]:checked", "input[type=text]", "input, textarea, select"]
    .map((selector) => box.querySelector(selector)).find(Boolean);
  if (first) {
    first.focus();
    if (first.select && first.type === "text") first.select();
  }
}

// What gets the focus back once the dialog is closed (wireDialog's onClose).
let refocus = () => {};

// The focus goes back at once: left on the closed dialog's field until its "close" event (a
// later task), a key pressed meanwhile would be taken for typing and lost.
function closeDialog() {
  byId("dialog").close();
  refocus();
}

export function field(label, input) {
  const id = "dialog-" + input.name;
  input.id = id;
  return el("div", { className: "field" }, el("label", { for: id, text: label }), input);
}

export function textInput(name, value) {
  return el("input", { type: "text", name: name, value: value || "", autocomplete: "off" });
}

export function textArea(name, value) {
  const area = el("textarea", { name: name, rows: "2" });
  area.value = value || "";
  return area;
}

export function lines(text) {
  return text.split("\n").map((line) => line.trim()).filter(Boolean);
}

// onClose: what gets the focus back once the dialog is closed.
export function wireDialog(onClose) {
  refocus = onClose;
  byId("dialog-form").addEventListener("submit", async function (event) {
    event.preventDefault();
    const action = state.dialogAction;
    if (!action) return closeDialog();
    byId("dialog-ok").disabled = true;
    try {
      await action();
      closeDialog();
    } catch (error) {
      byId("dialog-error").textContent = errorText(error);
    } finally {
      byId("dialog-ok").disabled = false;
    }
  });
  // Enter on a tick box, a radio button or a list confirms too, as it does in a text box.
  byId("dialog").addEventListener("keydown", function (event) {
    if (event.key === "Enter" && event.target.matches("input[type=checkbox], input[type=radio], select")) {
      event.preventDefault();
      byId("dialog-form").requestSubmit();
    }
  });
  byId("dialog-cancel").addEventListener("click", closeDialog);
  byId("dialog").addEventListener("close", function () {
    state.dialogAction = null;
    onClose();
  });
}
