// What a lead does to the codes of the code board: merge the selected codes into the current
// one, rename a code, split one (in an open-coding study, by ticking the uses the new code
// takes; on a revision board, as a copy of the card), group codes under a category.

import { api } from "./api.js";
import { change, refuseFrozen, tryChange } from "./board_changes.js";
import { field, openDialog, textInput } from "./board_dialog.js";
import { cardWord, codeById, errorText, setStatus, state, themesOf, url } from "./board_state.js";
import { byId, el } from "./dom.js";

function current() {
  const code = codeById(state.current);
  if (!code) setStatus("No " + cardWord() + " is current: move to one with the arrows.", true);
  return code;
}

export function merge() {
  if (refuseFrozen()) return;
  const into = state.current;
  const codes = [...state.selected].filter((id) => id !== into);
  if (into === null || !codes.length) {
    setStatus("Select the " + cardWord() + "s to merge with Space (or tick them), then press m on the " + cardWord() + " they merge into.", true);
    return;
  }
  state.selected.clear();
  tryChange("POST", "codes/merge/", { codes: codes, into: into });
}

export function groupInto(codes, themeId) {
  if (refuseFrozen()) return;
  state.selected.clear();
  return tryChange("POST", "codes/group/", { codes: codes, theme: themeId });
}

export function rename() {
  if (refuseFrozen()) return;
  const code = current();
  if (!code) return;
  const input = textInput("name", code.name);
  openDialog("Rename “" + code.name + "”", [field("New name", input)], async function () {
    await change("POST", "codes/" + code.id + "/rename/", { name: input.value });
  }, "Rename");
}

export async function split() {
  if (refuseFrozen()) return;
  const code = current();
  if (!code) return;
  const name = textInput("name", "");
  if (state.board.board.kind === "revision") {
    openDialog("Split “" + code.name + "”", [
      el("p", { className: "small", text: "A copy of the card, from the same category (" + code.source_path + "): put it under another category and the category goes to both." }),
      field("Name of the copy", name),
    ], async function () {
      await change("POST", "codes/" + code.id + "/split/", { name: name.value });
    }, "Split");
    return;
  }
  let found;
  try {
    found = await api("GET", url("codes/" + code.id + "/"));
  } catch (error) {
    setStatus(errorText(error), true);
    return;
  }
  const byItem = new Map();
  found.uses.forEach(function (use) {
    if (!byItem.has(use.item)) byItem.set(use.item, []);
    byItem.get(use.item).push(use);
  });
  const groups = [...byItem.values()].map(function (uses) {
    const all = el("input", { type: "checkbox", "data-item": uses[0].item, "aria-label": "Every use on " + uses[0].report });
    const boxes = uses.map((use) => el("input", { type: "checkbox", name: "use", value: use.id, "data-testid": "split-use" }));
    all.addEventListener("change", () => boxes.forEach((box) => { box.checked = all.checked; }));
    return el("fieldset", {},
      el("legend", {}, el("label", { className: "choice" }, all, el("strong", { text: uses[0].report }), " " + uses[0].title)),
      ...uses.map((use, index) => el("label", { className: "choice" }, boxes[index], use.annotator + " wrote “" + use.written_as + "”")));
  });
  openDialog("Split “" + code.name + "”", [
    field("Name of the new code", name),
    el("p", { className: "small", text: "Tick the uses it takes (a report's box ticks all its uses); the rest stay with “" + code.name + "”." }),
    el("div", { className: "choices" }, ...groups),
  ], async function () {
    const uses = [...byId("dialog-body").querySelectorAll("input[name=use]:checked")].map((box) => Number(box.value));
    await change("POST", "codes/" + code.id + "/split/", { name: name.value, uses: uses });
  }, "Split");
}

function themeChoices(dimension, checkedId) {
  return themesOf(dimension).map((theme) => el("label", { className: "choice depth-" + Math.min(theme.depth, 5) },
    el("input", { type: "radio", name: "theme", value: String(theme.id), checked: theme.id === checkedId }),
    theme.name + " ", el("code", { text: theme.path })));
}

export function group() {
  if (refuseFrozen()) return;
  const ids = state.selected.size ? [...state.selected] : (state.current !== null ? [state.current] : []);
  if (!ids.length) {
    setStatus("No " + cardWord() + " to group: move to one, or select some with Space.", true);
    return;
  }
  const names = ids.map((id) => codeById(id).name);
  const first = codeById(ids[0]);
  const themes = themesOf(state.dimension);
  const fresh = textInput("new_name", "");
  // Offered first: a category the first code is not under yet.
  const other = themes.find((theme) => theme.id !== first.theme);
  const choices = [
    el("label", { className: "choice" }, el("input", { type: "radio", name: "theme", value: "", checked: themes.length > 0 && !other }), "Ungrouped"),
    ...themeChoices(state.dimension, other ? other.id : null),
    el("label", { className: "choice" }, el("input", { type: "radio", name: "theme", value: "new", checked: !themes.length }), "A new category: ", fresh),
  ];
  fresh.addEventListener("focus", function () {
    byId("dialog-body").querySelector('input[value="new"]').checked = true;
  });
  openDialog("Group " + names.map((name) => "“" + name + "”").join(", "), [el("div", { className: "choices", role: "radiogroup" }, ...choices)], async function () {
    const picked = byId("dialog-body").querySelector("input[name=theme]:checked");
    if (!picked) throw new Error("Pick a category, or Ungrouped.");
    let theme = picked.value === "" ? null : Number(picked.value);
    if (picked.value === "new") {
      const made = await change("POST", "themes/", { dimension: state.dimension, name: fresh.value });
      theme = made.created;
    }
    state.selected.clear();
    await change("POST", "codes/group/", { codes: ids, theme: theme });
  }, "Group");
}
