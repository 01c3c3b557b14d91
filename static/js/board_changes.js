// Changing the code board: every change goes to the board API, which answers the whole board
// again; the page draws it (the entry module says how, drawBoardWith) and the status line says
// what changed. A frozen board refuses every change. Undo, and the history of the changes.

import { api } from "./api.js";
import { errorText, frozen, setStatus, state, url } from "./board_state.js";
import { byId, day, el } from "./dom.js";

let draw = null;

export function drawBoardWith(render) {
  draw = render;
}

export async function change(method, path, body) {
  const answer = await api(method, url(path), body);
  draw(answer);
  const latest = answer.history[0];
  setStatus((latest ? latest.description : "Done.") + (answer.undo && !frozen() ? " (u undoes it)" : ""));
  return answer;
}

export async function tryChange(method, path, body) {
  try {
    return await change(method, path, body);
  } catch (error) {
    setStatus(errorText(error), true);
    return null;
  }
}

export function refuseFrozen() {
  if (!state.board) {
    setStatus("The board is still loading.", true);
    return true;
  }
  if (!frozen()) return false;
  setStatus("The board is frozen: it no longer changes.", true);
  return true;
}

export function undo() {
  if (refuseFrozen()) return;
  tryChange("POST", "undo/");
}

export function renderHistory() {
  const list = byId("history");
  list.replaceChildren(...state.board.history.map(function (event) {
    const item = el("li", { className: event.undone_at ? "undone" : "", "data-testid": "history-entry" },
      el("span", { className: "muted", text: day(event.at) + " · " + (event.user || "someone") + " · " }), event.description);
    // The space stays outside the span: an inline-block drops its own leading space.
    if (event.undone_at) item.append(" ", el("span", { className: "muted undone-by", text: "(undone by " + (event.undone_by || "someone") + ", " + day(event.undone_at) + ")" }));
    return item;
  }));
  if (state.board.history_total > state.board.history.length) {
    list.append(el("li", { className: "muted", text: "… " + (state.board.history_total - state.board.history.length) + " older changes (the history API lists them all)" }));
  }
  if (byId("undo")) {
    byId("undo").disabled = !state.board.undo;
    byId("undo").title = state.board.undo ? "Undo: " + state.board.undo.description : "Nothing to undo";
  }
}
