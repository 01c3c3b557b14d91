// The code board of a study (labeler/views/board.py), for its leads: the codes of one
// dimension on the left, the categories and sub-categories with the codes under each on the
// right, the history below. Every change goes to the board API (labeler/api/board.py), which
// answers the whole board again; the page draws it.
//
// Keyboard (listed on the page): arrows move through the codes, Space selects, m merges the
// selected codes into the current one, r renames, s splits, g groups, n makes a category, u
// undoes, [ and ] change the dimension, / filters, Esc clears the selection. Mouse: click a
// code to make it current, tick codes to select them, drag codes onto a category (or onto
// "Ungrouped"), drag a category onto another (or onto "Top level"), or use the buttons.

import { api } from "./api.js";
import { byId, day, el, plural } from "./dom.js";

const config = JSON.parse(byId("board-config").textContent);
const CODES = "application/x-board-codes";
const THEME = "application/x-board-theme";
const state = {
  board: null, dimension: null, current: null, selected: new Set(),
  realNames: false, filter: "", onlyUngrouped: false, dialogAction: null,
};

function url(path) {
  return config.api + (path || "") + (state.realNames ? "?names=real" : "");
}

function setStatus(text, isError) {
  const box = byId("status");
  box.textContent = text;
  box.classList.toggle("error", Boolean(isError));
}

function errorText(error) {
  const fields = Object.entries(error.fields || {})
    .filter(([name]) => !error.message.startsWith(name + ": "))
    .map(([name, messages]) => name + ": " + [].concat(messages).join(" "));
  return [error.message].concat(fields).join(" · ");
}

function frozen() {
  return Boolean(state.board && state.board.board && state.board.board.frozen);
}

// Reading the board

function codesOf(dimension) {
  return state.board.codes.filter((code) => code.dimension === dimension);
}

function themesOf(dimension) {
  return state.board.themes.filter((theme) => theme.dimension === dimension);
}

function codeById(id) {
  return state.board.codes.find((code) => code.id === id);
}

function themeById(id) {
  return state.board.themes.find((theme) => theme.id === id);
}

function shownCodes() {
  const needle = state.filter.trim().toLowerCase();
  return codesOf(state.dimension).filter(function (code) {
    if (state.onlyUngrouped && code.theme !== null) return false;
    if (!needle) return true;
    return (code.name + " " + code.merged.join(" ") + " " + (code.theme_path || "")).toLowerCase().includes(needle);
  });
}

function descendants(themeId) {
  const below = new Set([themeId]);
  state.board.themes.forEach(function (theme) {
    if (below.has(theme.parent)) below.add(theme.id);
  });
  return below;
}

function siblings(theme) {
  return themesOf(theme.dimension).filter((other) => other.parent === theme.parent);
}

// Drawing

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

function revision() {
  return Boolean(state.board && state.board.board && state.board.board.kind === "revision");
}

// A revision board's cards carry no uses: what counts there is the study's final labels.
function countsText(item) {
  if (revision()) return item.final_labels === undefined ? "" : plural(item.final_labels, "final label");
  return plural(item.uses, "use") + " · " + plural(item.reports, "report");
}

function chipCount(code) {
  return revision() ? code.final_labels : code.uses;
}

function revisionFacts(code) {
  const facts = el("div", { className: "code-meta" },
    el("span", { "data-testid": "final-labels", text: plural(code.final_labels, "final label") + " in this study on " + code.sources.join(", ") }));
  const reasons = Object.entries(code.reasons);
  if (reasons.length) {
    facts.append(" · disagreements: ", el("span", { className: "reasons-list" },
      ...reasons.map(([reason, count]) => el("span", { className: "badge warn", text: reason.replace(/_/g, " ") + " " + count }))));
  }
  if (code.disagreements.length) {
    const list = el("ul", { className: "disagreements" });
    code.disagreements.forEach(function (entry) {
      list.append(el("li", {}, el("strong", { text: entry.report }), " " + entry.reason.replace(/_/g, " ") + ": ",
        entry.rationale || "(no rationale)", el("span", { className: "muted", text: " — answers " + entry.answers.join(", ") + "; final " + (entry.final.join(", ") || "none") })));
    });
    facts.append(el("details", {}, el("summary", { text: "Rationales (" + code.disagreements.length + ")" }), list));
  }
  return facts;
}

function codeCard(code) {
  const selected = state.selected.has(code.id);
  const card = el("li", {
    className: "code-card" + (code.id === state.current ? " current" : "") + (code.theme === null ? " ungrouped" : ""),
    role: "option", "aria-selected": String(selected), tabindex: code.id === state.current ? "0" : "-1",
    "data-id": code.id, "data-testid": "code", draggable: frozen() ? null : "true",
  });
  const tick = el("input", { type: "checkbox", "aria-label": "Select " + code.name, checked: selected, disabled: frozen(), tabindex: "-1" });
  tick.addEventListener("click", function (event) {
    event.stopPropagation();
    toggleSelected(code.id);
  });
  const head = el("div", { className: "code-head" }, tick,
    el("span", { className: "code-name", "data-testid": "code-name", text: code.name }),
    el("span", { className: "muted small", "data-testid": "code-counts", text: countsText(code) }),
    el("span", { className: "badge" + (code.theme === null ? " warn" : ""), "data-testid": "code-theme", text: code.theme_path || "ungrouped" }));
  if (!frozen()) {
    const buttons = el("span", { className: "code-buttons" });
    [["Rename", rename, "rename"], ["Split", split, "split"]].forEach(function ([text, action, id]) {
      const button = el("button", { type: "button", text: text, "data-testid": id + "-button", tabindex: "-1" });
      button.addEventListener("click", function (event) {
        event.stopPropagation();
        setCurrent(code.id);
        action();
      });
      buttons.append(button);
    });
    head.append(buttons);
  }
  card.append(head);
  const meta = el("div", { className: "code-meta" });
  if (code.annotators.length) meta.append(el("span", { "data-testid": "code-annotators", text: "by " + [...new Set(code.annotators)].join(", ") }), " · ");
  if (code.merged.length) meta.append(el("span", { "data-testid": "code-merged", text: "also written as " + code.merged.join(", ") }), " · ");
  if (code.source_path) meta.append(el("span", { text: "from " }), el("code", { text: code.source_path }), " ");
  code.examples.forEach(function (example) {
    meta.append(el("a", { href: example.url, title: example.title, text: example.report }));
  });
  if (meta.childNodes.length) card.append(meta);
  if (code.final_labels !== undefined) card.append(revisionFacts(code));
  card.addEventListener("click", () => setCurrent(code.id));
  card.addEventListener("dragstart", (event) => startDragCodes(event, code.id));
  return card;
}

function renderCodes() {
  const list = byId("codes");
  const hadFocus = list.contains(document.activeElement) || document.activeElement === document.body;
  const codes = shownCodes();
  list.replaceChildren(...codes.map(codeCard));
  if (!codes.length) list.append(el("li", { className: "muted", text: codesOf(state.dimension).length ? "No code matches." : "No code yet." }));
  const count = state.selected.size;
  if (byId("selection-count")) {
    const current = codeById(state.current);
    byId("selection-count").textContent = count ? plural(count, "code") + " selected" : "Nothing selected.";
    byId("merge").disabled = !current || ![...state.selected].some((id) => id !== state.current);
    byId("merge").textContent = current ? "Merge selected into “" + current.name + "” (m)" : "Merge into the current code (m)";
  }
  if (hadFocus) focusCurrent();
}

function focusCurrent() {
  const card = byId("codes").querySelector('[data-id="' + state.current + '"]');
  if (card) {
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: "nearest" });
  }
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

function dropZone(node, accepts, onDrop) {
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
  head.addEventListener("dragstart", function (event) {
    event.dataTransfer.setData(THEME, String(theme.id));
    event.dataTransfer.effectAllowed = "move";
  });
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

function renderTree() {
  const tree = byId("tree");
  const ungrouped = codesOf(state.dimension).filter((code) => code.theme === null);
  const zone = el("div", { className: "tree-node zone", "data-testid": "ungrouped-zone" },
    el("div", { className: "theme-head" }, el("span", { className: "theme-name", text: "Ungrouped" }),
      el("span", { className: "muted small", text: plural(ungrouped.length, "code") + (ungrouped.length ? ": drop codes here to ungroup them" : "") })));
  if (ungrouped.length) zone.append(el("div", { className: "chips" }, ...ungrouped.map(chip)));
  dropZone(zone, [CODES], (codes) => codes && groupInto(codes, null));
  const themes = themesOf(state.dimension);
  const top = el("div", { className: "tree-node zone small", "data-testid": "top-zone", text: "Top level: drop a category here to make it a top-level one" });
  dropZone(top, [THEME], (_codes, moved) => moved !== null && moveTheme(themeById(moved), null, null));
  tree.replaceChildren(zone, ...themes.map(themeNode));
  if (themes.some((theme) => theme.parent !== null) && !frozen()) tree.append(top);
  if (!themes.length) tree.append(el("p", { className: "muted", text: "No category yet: n makes one." }));
}

function renderHistory() {
  const list = byId("history");
  list.replaceChildren(...state.board.history.map(function (event) {
    const item = el("li", { className: event.undone_at ? "undone" : "", "data-testid": "history-entry" },
      el("span", { className: "muted", text: day(event.at) + " · " + (event.user || "someone") + " · " }), event.description);
    if (event.undone_at) item.append(el("span", { className: "muted undone-by", text: " (undone by " + (event.undone_by || "someone") + ", " + day(event.undone_at) + ")" }));
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

function renderFreeze() {
  const box = byId("freeze-ungrouped");
  if (!box) return;
  const ungrouped = state.board.codes.filter((code) => code.theme === null);
  box.textContent = ungrouped.length
    ? plural(ungrouped.length, "code") + " under no category: " + ungrouped.map((code) => code.name).join(", ") + "."
    : "Every code is under a category.";
}

// Moving about

function setCurrent(id) {
  state.current = id;
  renderCodes();
  byId("tree").querySelectorAll(".code-chip").forEach((node) => node.classList.toggle("current", Number(node.dataset.id) === id));
}

function move(step) {
  const codes = shownCodes();
  if (!codes.length) return;
  const at = codes.findIndex((code) => code.id === state.current);
  const next = at < 0 ? 0 : Math.max(0, Math.min(codes.length - 1, at + step));
  setCurrent(codes[next].id);
  focusCurrent();
}

function toggleSelected(id) {
  if (frozen()) return;
  if (state.selected.has(id)) state.selected.delete(id);
  else state.selected.add(id);
  renderCodes();
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

function startDragCodes(event, id) {
  const ids = state.selected.has(id) ? [...state.selected] : [id];
  event.dataTransfer.setData(CODES, JSON.stringify(ids));
  event.dataTransfer.effectAllowed = "move";
}

// Changing the board

async function change(method, path, body) {
  const answer = await api(method, url(path), body);
  render(answer);
  const latest = answer.history[0];
  setStatus((latest ? latest.description : "Done.") + (answer.undo && !frozen() ? " (u undoes it)" : ""));
  return answer;
}

async function tryChange(method, path, body) {
  try {
    return await change(method, path, body);
  } catch (error) {
    setStatus(errorText(error), true);
    return null;
  }
}

function refuseFrozen() {
  if (!state.board) {
    setStatus("The board is still loading.", true);
    return true;
  }
  if (!frozen()) return false;
  setStatus("The board is frozen: it no longer changes.", true);
  return true;
}

function merge() {
  if (refuseFrozen()) return;
  const into = state.current;
  const codes = [...state.selected].filter((id) => id !== into);
  if (into === null || !codes.length) {
    setStatus("Select the codes to merge with Space (or tick them), then press m on the code they merge into.", true);
    return;
  }
  state.selected.clear();
  tryChange("POST", "codes/merge/", { codes: codes, into: into });
}

function groupInto(codes, themeId) {
  if (refuseFrozen()) return;
  state.selected.clear();
  return tryChange("POST", "codes/group/", { codes: codes, theme: themeId });
}

function moveTheme(theme, parent, position) {
  if (refuseFrozen() || !theme) return;
  const body = { parent: parent };
  if (position !== null) body.position = position;
  tryChange("POST", "themes/" + theme.id + "/move/", body);
}

function undo() {
  if (refuseFrozen()) return;
  tryChange("POST", "undo/");
}

// Dialogs: one <dialog>, its body built for each action; OK (Enter) runs the action, whose
// error shows in the dialog, which stays open; Esc closes it.

function openDialog(title, body, action, okText) {
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

function closeDialog() {
  byId("dialog").close();
}

function field(label, input) {
  const id = "dialog-" + input.name;
  input.id = id;
  return el("div", { className: "field" }, el("label", { for: id, text: label }), input);
}

function textInput(name, value) {
  return el("input", { type: "text", name: name, value: value || "", autocomplete: "off" });
}

function textArea(name, value) {
  const area = el("textarea", { name: name, rows: "2" });
  area.value = value || "";
  return area;
}

function current() {
  const code = codeById(state.current);
  if (!code) setStatus("No code is current: move to one with the arrows.", true);
  return code;
}

function rename() {
  if (refuseFrozen()) return;
  const code = current();
  if (!code) return;
  const input = textInput("name", code.name);
  openDialog("Rename “" + code.name + "”", [field("New name", input)], async function () {
    await change("POST", "codes/" + code.id + "/rename/", { name: input.value });
  }, "Rename");
}

async function split() {
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

function group() {
  if (refuseFrozen()) return;
  const ids = state.selected.size ? [...state.selected] : (state.current !== null ? [state.current] : []);
  if (!ids.length) {
    setStatus("No code to group: move to one, or select some with Space.", true);
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

function lines(text) {
  return text.split("\n").map((line) => line.trim()).filter(Boolean);
}

function newTheme(parentId) {
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

function editTheme(theme) {
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

function deleteTheme(theme) {
  if (refuseFrozen()) return;
  const below = descendants(theme.id).size - 1;
  openDialog("Delete “" + theme.name + "”?", [
    el("p", { text: (below ? "It and its " + plural(below, "sub-category") + " go; " : "It goes; ") + "the codes under them go back to ungrouped. Undo brings everything back." }),
  ], async function () {
    await change("DELETE", "themes/" + theme.id + "/");
  }, "Delete");
}

// Freezing, and starting a revision board

async function freeze(event) {
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

async function startRevision() {
  try {
    await api("POST", config.api + "revision/");
    window.location.reload();
  } catch (error) {
    setStatus(errorText(error), true);
  }
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
  if (byId("dialog").open) return;
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
    focusCurrent();
  });
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
