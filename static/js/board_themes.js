// What a lead does to the categories of the code board: make one (at the top level or under
// another), edit its name, key, definition, criteria, examples and parent, move it among its
// siblings or under another, delete it (its codes go back to ungrouped).

import { change, refuseFrozen, tryChange } from "./board_changes.js";
import { field, lines, openDialog, textArea, textInput } from "./board_dialog.js";
import { cardWord, descendants, state, themesOf } from "./board_state.js";
import { el, plural } from "./dom.js";

// position: the category's place among its new siblings; null puts it last.
export function moveTheme(theme, parent, position) {
  if (refuseFrozen() || !theme) return;
  const body = { parent: parent };
  if (position !== null) body.position = position;
  tryChange("POST", "themes/" + theme.id + "/move/", body);
}

function parentSelect(dimension, value, except) {
  const select = el("select", { name: "parent" }, el("option", { value: "", text: "(top level)" }));
  themesOf(dimension).forEach(function (theme) {
    if (except && except.has(theme.id)) return;
    select.append(el("option", { value: String(theme.id), text: "—".repeat(theme.depth) + " " + theme.name + " (" + theme.path + ")", selected: theme.id === value }));
  });
  return select;
}

function themeFields(theme) {
  return {
    name: textInput("name", theme ? theme.name : ""),
    key: textInput("key", theme ? theme.key : ""),
    definition: textArea("definition", theme ? theme.definition : ""),
    include: textArea("include", theme ? theme.include : ""),
    exclude: textArea("exclude", theme ? theme.exclude : ""),
    examples: textArea("examples", theme ? theme.examples.join("\n") : ""),
  };
}

function themeFieldRows(inputs) {
  return [
    field("Name", inputs.name),
    field("Key (lowercase, hyphens; empty: made from the name)", inputs.key),
    field("Definition", inputs.definition),
    field("Include (inclusion criteria)", inputs.include),
    field("Exclude (exclusion criteria)", inputs.exclude),
    field("Examples, one a line", inputs.examples),
  ];
}

export function newTheme(parentId) {
  if (refuseFrozen() || !state.dimension) return;
  const inputs = themeFields(null);
  const parent = parentSelect(state.dimension, typeof parentId === "number" ? parentId : null);
  openDialog("New category in " + state.board.dimensions.find((d) => d.key === state.dimension).name,
    [...themeFieldRows(inputs), field("Under", parent)], async function () {
      const body = {
        dimension: state.dimension, name: inputs.name.value, key: inputs.key.value.trim(),
        definition: inputs.definition.value, include: inputs.include.value, exclude: inputs.exclude.value,
        examples: lines(inputs.examples.value), parent: parent.value ? Number(parent.value) : null,
      };
      await change("POST", "themes/", body);
    }, "Create");
}

export function editTheme(theme) {
  if (refuseFrozen()) return;
  const inputs = themeFields(theme);
  const parent = parentSelect(theme.dimension, theme.parent, descendants(theme.id));
  openDialog("Edit “" + theme.name + "”", [...themeFieldRows(inputs), field("Under", parent)], async function () {
    const body = {};
    ["name", "key", "definition", "include", "exclude"].forEach(function (name) {
      if (inputs[name].value !== theme[name]) body[name] = inputs[name].value;
    });
    const examples = lines(inputs.examples.value);
    if (examples.join("\n") !== theme.examples.join("\n")) body.examples = examples;
    const newParent = parent.value ? Number(parent.value) : null;
    if (!Object.keys(body).length && newParent === theme.parent) throw new Error("Nothing changed.");
    if (Object.keys(body).length) await change("PATCH", "themes/" + theme.id + "/", body);
    if (newParent !== theme.parent) await change("POST", "themes/" + theme.id + "/move/", { parent: newParent });
  }, "Save");
}

export function deleteTheme(theme) {
  if (refuseFrozen()) return;
  const below = descendants(theme.id).size - 1;
  openDialog("Delete “" + theme.name + "”?", [
    el("p", { text: (below ? "It and its " + plural(below, "sub-category") + " go; " : "It goes; ") + "the " + cardWord() + "s under them go back to ungrouped. Undo brings everything back." }),
  ], async function () {
    await change("DELETE", "themes/" + theme.id + "/");
  }, "Delete");
}
