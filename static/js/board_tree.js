// The code board's tree of categories for the dimension shown: each category with its
// buttons (edit, add a sub-category, up, down, delete) and its codes as chips, the zone of the
// ungrouped codes, and where codes and categories are dropped.

import { focusCurrent, setCurrent } from "./board_cards.js";
import { groupInto } from "./board_codes.js";
import { CODES, THEME, dropZone, startDragCodes, startDragTheme } from "./board_drag.js";
import { cardWord, codesOf, countsText, frozen, revision, siblings, state, themeById, themesOf } from "./board_state.js";
import { deleteTheme, editTheme, moveTheme, newTheme } from "./board_themes.js";
import { byId, el, plural } from "./dom.js";

function chipCount(code) {
  return revision() ? code.final_labels : code.uses;
}

function chip(code) {
  const node = el("span", {
    className: "code-chip" + (code.id === state.current ? " current" : ""), "data-id": code.id, "data-testid": "chip",
    draggable: frozen() ? null : "true", title: countsText(code), text: code.name + " (" + chipCount(code) + ")",
  });
  node.addEventListener("click", function () {
    state.filter = "";
    byId("filter").value = "";
    setCurrent(code.id);
    focusCurrent();
  });
  node.addEventListener("dragstart", (event) => startDragCodes(event, code.id));
  return node;
}

function themeButton(text, label, name, action) {
  const button = el("button", { type: "button", text: text, "aria-label": label, title: label, "data-testid": "theme-" + name });
  button.addEventListener("click", action);
  return button;
}

function themeNode(theme) {
  const node = el("div", { className: "tree-node depth-" + Math.min(theme.depth, 5), "data-theme": theme.id, "data-testid": "theme", "data-path": theme.path });
  const head = el("div", { className: "theme-head", draggable: frozen() ? null : "true" },
    el("span", { className: "theme-name", "data-testid": "theme-name", text: theme.name }),
    el("code", { text: theme.path }),
    el("span", { className: "muted small", "data-testid": "theme-counts", text: revision() ? plural(theme.all_codes, "card") : plural(theme.all_codes, "code") + " · " + countsText(theme) }));
  if (!frozen()) {
    const peers = siblings(theme);
    const at = peers.findIndex((peer) => peer.id === theme.id);
    const buttons = el("span", { className: "theme-buttons" },
      themeButton("Edit", "Edit " + theme.name, "edit", () => editTheme(theme)),
      themeButton("+", "Add a sub-category to " + theme.name, "add", () => newTheme(theme.id)));
    if (at > 0) buttons.append(themeButton("↑", "Move " + theme.name + " up", "up", () => moveTheme(theme, theme.parent, at - 1)));
    if (at < peers.length - 1) buttons.append(themeButton("↓", "Move " + theme.name + " down", "down", () => moveTheme(theme, theme.parent, at + 1)));
    buttons.append(themeButton("✕", "Delete " + theme.name, "delete", () => deleteTheme(theme)));
    head.append(buttons);
  }
  head.addEventListener("dragstart", (event) => startDragTheme(event, theme));
  node.append(head);
  if (theme.definition) node.append(el("p", { className: "theme-definition", text: theme.definition }));
  const under = codesOf(theme.dimension).filter((code) => code.theme === theme.id);
  if (under.length) node.append(el("div", { className: "chips" }, ...under.map(chip)));
  dropZone(node, [CODES, THEME], function (codes, moved) {
    if (codes) groupInto(codes, theme.id);
    else if (moved !== null && moved !== theme.id) moveTheme(themeById(moved), theme.id, null);
  });
  return node;
}

export function renderTree() {
  const tree = byId("tree");
  const ungrouped = codesOf(state.dimension).filter((code) => code.theme === null);
  const zone = el("div", { className: "tree-node zone", "data-testid": "ungrouped-zone" },
    el("div", { className: "theme-head" }, el("span", { className: "theme-name", text: "Ungrouped" }),
      el("span", { className: "muted small", text: plural(ungrouped.length, cardWord()) + (ungrouped.length ? ": drop " + cardWord() + "s here to ungroup them" : "") })));
  if (ungrouped.length) zone.append(el("div", { className: "chips" }, ...ungrouped.map(chip)));
  dropZone(zone, [CODES], (codes) => codes && groupInto(codes, null));
  const themes = themesOf(state.dimension);
  const top = el("div", { className: "tree-node zone small", "data-testid": "top-zone", text: "Top level: drop a category here to make it a top-level one" });
  dropZone(top, [THEME], (_codes, moved) => moved !== null && moveTheme(themeById(moved), null, null));
  tree.replaceChildren(zone, ...themes.map(themeNode));
  if (themes.some((theme) => theme.parent !== null) && !frozen()) tree.append(top);
  if (!themes.length) tree.append(el("p", { className: "muted", text: "No category yet: n makes one." }));
}
