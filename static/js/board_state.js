// The code board's shared state (the board as the API last answered it, the dimension shown,
// the current and selected codes, the filters) and what every part of the page reads from it:
// the API's addresses, the status line, whether the board is frozen or a revision's, and the
// codes and categories of a dimension.

import { byId, plural } from "./dom.js";

export const config = JSON.parse(byId("board-config").textContent);

export const state = {
  board: null, dimension: null, current: null, selected: new Set(),
  realNames: false, filter: "", onlyUngrouped: false, dialogAction: null,
};

export function url(path) {
  return config.api + (path || "") + (state.realNames ? "?names=real" : "");
}

export function setStatus(text, isError) {
  const box = byId("status");
  box.textContent = text;
  box.classList.toggle("error", Boolean(isError));
}

export function errorText(error) {
  const fields = Object.entries(error.fields || {})
    .filter(([name]) => !error.message.startsWith(name + ": "))
    .map(([name, messages]) => name + ": " + [].concat(messages).join(" "));
  return [error.message].concat(fields).join(" · ");
}

export function frozen() {
  return Boolean(state.board && state.board.board && state.board.board.frozen);
}

export function revision() {
  return Boolean(state.board && state.board.board && state.board.board.kind === "revision");
}

// What the board's cards are called: codes on an open round's board; on a revision board
// each stands for a category of the version it revises.
export function cardWord() {
  return revision() ? "card" : "code";
}

// A revision board's cards carry no uses: what counts there is the study's final labels.
export function countsText(item) {
  if (revision()) return item.final_labels === undefined ? "" : plural(item.final_labels, "final label");
  return plural(item.uses, "use") + " · " + plural(item.reports, "report");
}

export function codesOf(dimension) {
  return state.board.codes.filter((code) => code.dimension === dimension);
}

export function themesOf(dimension) {
  return state.board.themes.filter((theme) => theme.dimension === dimension);
}

export function codeById(id) {
  return state.board.codes.find((code) => code.id === id);
}

export function themeById(id) {
  return state.board.themes.find((theme) => theme.id === id);
}

export function shownCodes() {
  const needle = state.filter.trim().toLowerCase();
  return codesOf(state.dimension).filter(function (code) {
    if (state.onlyUngrouped && code.theme !== null) return false;
    if (!needle) return true;
    return (code.name + " " + code.merged.join(" ") + " " + (code.theme_path || "")).toLowerCase().includes(needle);
  });
}

export function descendants(themeId) {
  const below = new Set([themeId]);
  state.board.themes.forEach(function (theme) {
    if (below.has(theme.parent)) below.add(theme.id);
  });
  return below;
}

export function siblings(theme) {
  return themesOf(theme.dimension).filter((other) => other.parent === theme.parent);
}
