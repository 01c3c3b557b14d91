// Freezing the code board into a codebook (the form says which codes are still under no
// category; a dialog asks first), and starting a revision board from the frozen one. Both
// reload the page.

import { api } from "./api.js";
import { cardWord, config, errorText, revision, setStatus, state, url } from "./board_state.js";
import { byId, plural } from "./dom.js";

export function renderFreeze() {
  const box = byId("freeze-ungrouped");
  if (!box) return;
  const ungrouped = state.board.codes.filter((code) => code.theme === null);
  box.textContent = ungrouped.length
    ? plural(ungrouped.length, cardWord()) + " under no category: " + ungrouped.map((code) => code.name).join(", ") + "."
    : "Every " + cardWord() + " is under a category.";
}

// The freeze asks first, naming the version it creates; the dialog's default button (the
// one Enter presses) is Cancel, and Esc cancels too.
export function freeze(event) {
  event.preventDefault();
  const form = byId("freeze-form");
  const body = {
    key: form.elements.key.value.trim(), version: form.elements.version.value.trim(),
    name: form.elements.name.value.trim(), leave_out_ungrouped: form.elements.leave_out_ungrouped.checked,
  };
  const ungrouped = state.board ? state.board.codes.filter((code) => code.theme === null) : [];
  byId("freeze-confirm-what").textContent = body.key + " v" + body.version + " (" + body.name + ")";
  byId("freeze-confirm-left-out").textContent = body.leave_out_ungrouped && ungrouped.length
    ? "Left out: " + plural(ungrouped.length, cardWord()) + " under no category" + (revision() ? " (their categories are removed)." : " (they go into no category).")
    : "";
  byId("freeze-confirm-ok").textContent = "Freeze into " + body.key + " v" + body.version;
  const dialog = byId("freeze-confirm");
  dialog.returnValue = "";
  dialog.addEventListener("close", function () {
    if (dialog.returnValue === "freeze") send(body);
    else byId("freeze-form").querySelector("[type=submit]").focus();
  }, { once: true });
  dialog.showModal();
}

async function send(body) {
  setStatus("Freezing…");
  try {
    await api("POST", url("freeze/"), body);
    window.location.reload();
  } catch (error) {
    setStatus(errorText(error), true);
  }
}

export async function startRevision() {
  try {
    await api("POST", config.api + "revision/");
    window.location.reload();
  } catch (error) {
    setStatus(errorText(error), true);
  }
}
