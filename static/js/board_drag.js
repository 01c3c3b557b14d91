// Drag and drop on the code board: codes (the selection, when the dragged code is in it) and
// categories are dragged as the board's own data types; a drop zone takes the types it accepts,
// and none while the board is frozen.

import { frozen, state } from "./board_state.js";

export const CODES = "application/x-board-codes";
export const THEME = "application/x-board-theme";

export function startDragCodes(event, id) {
  const ids = state.selected.has(id) ? [...state.selected] : [id];
  event.dataTransfer.setData(CODES, JSON.stringify(ids));
  event.dataTransfer.effectAllowed = "move";
}

export function startDragTheme(event, theme) {
  event.dataTransfer.setData(THEME, String(theme.id));
  event.dataTransfer.effectAllowed = "move";
}

// onDrop(codes, theme): the dragged codes' ids or null, the dragged category's id or null.
export function dropZone(node, accepts, onDrop) {
  node.addEventListener("dragover", function (event) {
    if (frozen() || !accepts.some((type) => event.dataTransfer.types.includes(type))) return;
    event.preventDefault();
    node.classList.add("drop-here");
  });
  node.addEventListener("dragleave", () => node.classList.remove("drop-here"));
  node.addEventListener("drop", function (event) {
    node.classList.remove("drop-here");
    event.preventDefault();
    const codes = event.dataTransfer.getData(CODES);
    const theme = event.dataTransfer.getData(THEME);
    onDrop(codes ? JSON.parse(codes) : null, theme ? Number(theme) : null);
  });
}
