// Freezing the code board into a codebook (the form says which codes are still under no
// category), and starting a revision board from the frozen one. Both reload the page.

import { api } from "./api.js";
import { config, errorText, setStatus, state, url } from "./board_state.js";
import { byId, plural } from "./dom.js";

export function renderFreeze() {
  const box = byId("freeze-ungrouped");
  if (!box) return;
  const ungrouped = state.board.codes.filter((code) => code.theme === null);
  box.textContent = ungrouped.length
    ? plural(ungrouped.length, "code") + " under no category: " + ungrouped.map((code) => code.name).join(", ") + "."
    : "Every code is under a category.";
}

export async function freeze(event) {
  event.preventDefault();
  const form = byId("freeze-form");
  const body = {
    key: form.elements.key.value.trim(), version: form.elements.version.value.trim(),
    name: form.elements.name.value.trim(), leave_out_ungrouped: form.elements.leave_out_ungrouped.checked,
  };
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
