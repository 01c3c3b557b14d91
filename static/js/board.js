// The code board of a study (labeler/coding/board/views.py), for its leads: the codes of one
// dimension on the left, the categories and sub-categories with the codes under each on the
// right, the history below. Every change goes to the board API (labeler/coding/board/api.py), which
// answers the whole board again; the page draws it.
//
// Keyboard (listed on the page): arrows move through the codes, Space selects, m merges the
// selected codes into the current one, r renames, s splits, g groups, n makes a category, u
// undoes, [ and ] change the dimension, / filters, Esc clears the selection. Mouse: click a
// code to make it current, tick codes to select them, drag codes onto a category (or onto
// "Ungrouped"), drag a category onto another (or onto "Top level"), or use the buttons.
//
// This module draws the board and wires the page; the parts: board_state (the shared state
// and its reads), board_cards (the list of codes), board_tree (the categories), board_codes
// and board_themes (the changes to codes and categories), board_dialog, board_drag,
// board_changes (the API round trip, undo, history) and board_freeze.

import { api } from "./api.js";
import { focusCurrent, move, renderCodes, toggleSelected } from "./board_cards.js";
import { drawBoardWith, renderHistory, undo } from "./board_changes.js";
import { group, merge, rename, split } from "./board_codes.js";
import { wireDialog } from "./board_dialog.js";
import { freeze, renderFreeze, startRevision } from "./board_freeze.js";
import { codeById, errorText, setStatus, shownCodes, state, url } from "./board_state.js";
import { newTheme } from "./board_themes.js";
import { renderTree } from "./board_tree.js";
import { byId, el } from "./dom.js";

function render(answer) {
  state.board = answer;
  const keys = answer.dimensions.map((d) => d.key);
  if (!keys.includes(state.dimension)) state.dimension = keys[0] || null;
  const ids = new Set(answer.codes.map((code) => code.id));
  state.selected = new Set([...state.selected].filter((id) => ids.has(id)));
  if (!ids.has(state.current) || (codeById(state.current) || {}).dimension !== state.dimension) {
    const first = shownCodes()[0];
    state.current = first ? first.id : null;
  }
  renderDimensions();
  renderCodes();
  renderTree();
  renderHistory();
  renderFreeze();
}

drawBoardWith(render);

function renderDimensions() {
  const nav = byId("dimensions");
  nav.replaceChildren(...state.board.dimensions.map(function (dimension) {
    const button = el("button", {
      type: "button", "aria-pressed": String(dimension.key === state.dimension), "data-dimension": dimension.key,
      text: dimension.name + " · " + dimension.ungrouped + " ungrouped",
    });
    button.addEventListener("click", () => switchDimension(dimension.key));
    return button;
  }));
  nav.hidden = state.board.dimensions.length < 2;
}

function switchDimension(key) {
  state.dimension = key;
  state.selected.clear();
  const first = shownCodes()[0];
  state.current = first ? first.id : null;
  render(state.board);
  focusCurrent();
}

function stepDimension(step) {
  const keys = state.board.dimensions.map((d) => d.key);
  const at = keys.indexOf(state.dimension);
  if (keys.length > 1) switchDimension(keys[(at + step + keys.length) % keys.length]);
}

// Wiring

const KEYS = {
  ArrowDown: () => move(1), j: () => move(1), ArrowUp: () => move(-1), k: () => move(-1),
  Home: () => move(-Infinity), End: () => move(Infinity),
  " ": () => state.current !== null && toggleSelected(state.current),
  m: merge, r: rename, s: split, g: group, n: () => newTheme(null), u: undo,
  "[": () => stepDimension(-1), "]": () => stepDimension(1),
  "/": () => byId("filter").focus(),
  Escape: function () {
    state.selected.clear();
    renderCodes();
  },
};

function onKey(event) {
  if (!state.board || !state.board.board || event.altKey || event.metaKey || event.ctrlKey) return;
  if (document.querySelector("dialog[open]")) return;
  const target = event.target;
  if (target.closest("input, textarea, select")) {
    if (event.key === "Escape" || (event.key === "ArrowDown" && target.id === "filter")) {
      target.blur();
      focusCurrent();
      event.preventDefault();
    }
    return;
  }
  if ((event.key === " " || event.key === "Enter") && target.closest("button, a, summary")) return;
  const action = KEYS[event.key];
  if (!action) return;
  event.preventDefault();
  action();
}

function wire() {
  document.addEventListener("keydown", onKey);
  wireDialog(focusCurrent);
  byId("filter").addEventListener("input", function () {
    state.filter = byId("filter").value;
    render(state.board);
  });
  byId("only-ungrouped").addEventListener("change", function () {
    state.onlyUngrouped = byId("only-ungrouped").checked;
    render(state.board);
  });
  byId("names").addEventListener("click", function () {
    state.realNames = !state.realNames;
    byId("names").setAttribute("aria-pressed", String(state.realNames));
    byId("names").textContent = state.realNames ? "Show pseudonyms" : "Show names";
    load();
  });
  const optional = {
    undo: undo, "new-theme": () => newTheme(null), merge: merge, group: group,
    "clear-selection": () => KEYS.Escape(),
  };
  Object.entries(optional).forEach(function ([id, action]) {
    if (byId(id)) byId(id).addEventListener("click", action);
  });
  if (byId("freeze-form")) byId("freeze-form").addEventListener("submit", freeze);
}

async function load() {
  try {
    render(await api("GET", url()));
  } catch (error) {
    setStatus("The board did not load: " + errorText(error), true);
  }
}

// The button waits for this script: a click before it ran would do nothing.
if (byId("start-revision")) {
  byId("start-revision").addEventListener("click", startRevision);
  byId("start-revision").disabled = false;
}
if (byId("codes")) {
  wire();
  load().then(focusCurrent);
}
