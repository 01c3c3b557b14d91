// The code board's list of codes (one card each, for the dimension shown and the filters):
// its counts, category, annotators, merged spellings and example reports, and on a revision
// board its final labels and disagreements. Moving through the cards, the current one, and
// the selection of codes that merge, group or drag together.

import { rename, split } from "./board_codes.js";
import { startDragCodes } from "./board_drag.js";
import { cardWord, codeById, codesOf, countsText, frozen, revision, shownCodes, state } from "./board_state.js";
import { byId, el, plural } from "./dom.js";

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
  if (code.merged.length) meta.append(el("span", { "data-testid": "code-merged", text: (revision() ? "merged into it: " : "also written as ") + code.merged.join(", ") }), " · ");
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

export function renderCodes() {
  const list = byId("codes");
  const hadFocus = list.contains(document.activeElement) || document.activeElement === document.body;
  const codes = shownCodes();
  list.replaceChildren(...codes.map(codeCard));
  if (!codes.length) list.append(el("li", { className: "muted", text: codesOf(state.dimension).length ? "No " + cardWord() + " matches." : "No " + cardWord() + " yet." }));
  const count = state.selected.size;
  if (byId("selection-count")) {
    const current = codeById(state.current);
    byId("selection-count").textContent = count ? plural(count, cardWord()) + " selected" : "Nothing selected.";
    byId("merge").disabled = !current || ![...state.selected].some((id) => id !== state.current);
    byId("merge").textContent = current ? "Merge selected into “" + current.name + "” (m)" : "Merge into the current " + cardWord() + " (m)";
  }
  if (hadFocus) focusCurrent();
}

export function focusCurrent() {
  const card = byId("codes").querySelector('[data-id="' + state.current + '"]');
  if (card) {
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: "nearest" });
  }
}

export function setCurrent(id) {
  state.current = id;
  renderCodes();
  byId("tree").querySelectorAll(".code-chip").forEach((node) => node.classList.toggle("current", Number(node.dataset.id) === id));
}

export function move(step) {
  const codes = shownCodes();
  if (!codes.length) return;
  const at = codes.findIndex((code) => code.id === state.current);
  const next = at < 0 ? 0 : Math.max(0, Math.min(codes.length - 1, at + step));
  setCurrent(codes[next].id);
  focusCurrent();
}

export function toggleSelected(id) {
  if (frozen()) return;
  if (state.selected.has(id)) state.selected.delete(id);
  else state.selected.add(id);
  renderCodes();
}
