// The adjudication desk (labeler/adjudication/views.py): an item side by side for a lead, every
// annotator's labels, note, unsure flag and time; per dimension the answers and who gave them,
// the disputed ones marked, with the codebook's entries of the categories chosen; the report
// beside them, in the labelling page's report view. The lead decides by keyboard (the keys are
// shown on the page) and the decision goes to the adjudication API with the labels as read
// (`seen`): labels changed since are refused there, and shown again with what changed. A final
// decision shows the next disagreement, fetched while the lead read (adjudicate_desk.js).

import { api } from "./api.js";
import { createDesk } from "./adjudicate_desk.js";
import { byId, el } from "./dom.js";
import { renderReport } from "./report.js";

const config = JSON.parse(byId("adjudicate-config").textContent);
const REASON_KEYS = { c: "codebook_ambiguity", s: "annotator_slip", u: "report_unclear", x: "other" };
const state = { side: null, current: 0, choices: {}, realNames: false, busy: false };

function urlFor(template, id) {
  return template.replace("{id}", encodeURIComponent(String(id)));
}

function answerText(values) {
  return values.length ? values.join(", ") : "(none)";
}

function setStatus(text, isError) {
  const box = byId("status");
  box.textContent = text;
  box.classList.toggle("error", Boolean(isError));
}

function choiceOf(key) {
  if (!state.choices[key]) state.choices[key] = { values: null, rationale: "", reason: "", other: false };
  return state.choices[key];
}

function renderAnnotators(side) {
  const dims = side.dimensions;
  const head = el("tr", {}, el("th", { text: "Annotator" }),
    ...dims.map((d) => el("th", { className: d.disputed ? "disputed" : "", text: d.name + (d.disputed ? " ✗" : "") })),
    el("th", { text: "Note" }), el("th", { text: "Unsure" }), el("th", { className: "num", text: "Time" }));
  const rows = side.annotators.map((a) => el("tr", { "data-testid": "annotator-row" },
    el("th", { scope: "row", text: a.annotator }),
    ...dims.map((d) => el("td", { className: d.disputed ? "disputed" : "", text: answerText(a.labels[d.key] || []) })),
    el("td", { text: a.note || "" }),
    el("td", { text: a.unsure ? "unsure" : "" }),
    el("td", { className: "num", text: a.seconds + " s" })));
  byId("annotators").replaceChildren(el("table", { className: "table small" }, el("thead", {}, head), el("tbody", {}, ...rows)));
}

function definitions(dimension) {
  if (!dimension.categories.length) return null;
  const list = el("dl", { className: "definitions small" });
  dimension.categories.forEach(function (c) {
    list.append(el("dt", {}, el("strong", { text: c.name }), " ", el("code", { text: c.path })));
    const dd = el("dd", {}, el("p", { text: c.definition || "(no definition)" }));
    if (c.include) dd.append(el("p", {}, el("em", { text: "Include: " }), c.include));
    if (c.exclude) dd.append(el("p", {}, el("em", { text: "Exclude: " }), c.exclude));
    list.append(dd);
  });
  return el("details", { className: "codebook", open: dimension.disputed }, el("summary", { text: "Codebook: the categories chosen" }), list);
}

function otherPicker(dimension, scheme, choice) {
  const select = el("select", { className: "other-picker", "aria-label": "Another answer for " + dimension.name, multiple: dimension.multiple, "data-testid": "other-" + dimension.key });
  if (!dimension.multiple) select.append(el("option", { value: "", text: "(none)" }));
  scheme.categories.forEach((c) => select.append(el("option", { value: c.path, text: c.name + " (" + c.path + ")" })));
  select.hidden = !choice.other;
  select.addEventListener("change", function () {
    const picked = Array.from(select.selectedOptions).map((o) => o.value).filter((v) => v !== "");
    choice.values = picked;
    choice.other = true;
    markChosen();
  });
  return select;
}

function renderDimensions(side) {
  const box = byId("dimensions");
  box.replaceChildren();
  side.dimensions.forEach(function (dimension, index) {
    const scheme = config.dimensions.find((d) => d.key === dimension.key);
    const choice = choiceOf(dimension.key);
    const card = el("article", {
      className: "card dimension" + (dimension.disputed ? " disputed" : "") + (index === state.current ? " current" : ""),
      "data-dimension": dimension.key, "data-testid": "dimension-" + dimension.key,
    });
    card.append(el("h3", {}, dimension.name, " ",
      el("span", { className: "badge" + (dimension.disputed ? " warn" : ""), text: (dimension.disputed ? "disputed · " : "") + dimension.agreement + " · " + Math.round(dimension.share * 100) + "% agree" })));
    const answers = el("ol", { className: "answers" });
    dimension.answers.forEach(function (answer, number) {
      answers.append(el("li", { "data-answer": number, "data-testid": "answer" },
        el("kbd", { text: String(number + 1) }), " ", el("strong", { text: answerText(answer.values) }),
        " ", el("span", { className: "muted", text: "— " + answer.annotators.join(", ") })));
    });
    answers.append(el("li", { "data-answer": "other" }, el("kbd", { text: "o" }), " another answer"));
    card.append(answers);
    card.append(otherPicker(dimension, scheme, choice));
    if (dimension.final) {
      card.append(el("p", { className: "final", "data-testid": "final-" + dimension.key },
        el("strong", { text: "Final: " + answerText(dimension.final.values) }),
        " (" + dimension.final.method + (dimension.final.decided_by ? " by " + dimension.final.decided_by : "") + ")",
        dimension.final.rationale ? " — " + dimension.final.rationale : ""));
    }
    const rationale = el("textarea", { rows: 2, className: "rationale", "aria-label": "Rationale for " + dimension.name, placeholder: "Rationale (r)", "data-testid": "rationale-" + dimension.key });
    rationale.value = choice.rationale;
    rationale.addEventListener("input", () => { choice.rationale = rationale.value; });
    const reasons = el("fieldset", { className: "reasons" }, el("legend", { className: "small", text: "Why they disagreed" }));
    config.reasons.forEach(function (reason) {
      const key = Object.keys(REASON_KEYS).find((k) => REASON_KEYS[k] === reason.value);
      const input = el("input", { type: "radio", name: "reason-" + dimension.key, value: reason.value, checked: choice.reason === reason.value });
      input.addEventListener("change", () => { choice.reason = reason.value; });
      reasons.append(el("label", { title: reason.label }, input, " ", el("kbd", { text: key }), " " + reason.name));
    });
    // A dimension that waits for no one asks for a rationale only once the lead picks for it.
    card.append(el("div", { className: "decision" }, rationale, reasons));
    const defs = definitions(dimension);
    if (defs) card.append(defs);
    card.addEventListener("click", () => setCurrent(index));
    box.append(card);
  });
  markChosen();
}

function markChosen() {
  state.side.dimensions.forEach(function (dimension) {
    const choice = choiceOf(dimension.key);
    const card = byId("dimensions").querySelector('[data-dimension="' + dimension.key + '"]');
    card.querySelectorAll("[data-answer]").forEach(function (li) {
      const answer = li.dataset.answer === "other" ? null : dimension.answers[Number(li.dataset.answer)];
      const picked = choice.values !== null && (answer ? !choice.other && sameValues(answer.values, choice.values) : choice.other);
      li.classList.toggle("picked", picked);
      li.setAttribute("aria-selected", picked ? "true" : "false");
    });
    card.querySelector(".decision").hidden = state.side.final || (!dimension.disputed && choice.values === null);
  });
}

function sameValues(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function setCurrent(index) {
  state.current = Math.max(0, Math.min(index, state.side.dimensions.length - 1));
  byId("dimensions").querySelectorAll(".dimension").forEach((card, at) => card.classList.toggle("current", at === state.current));
  byId("dimensions").children[state.current].scrollIntoView({ block: "nearest" });
}

function renderHistory(side) {
  const list = el("ol", { className: "small" });
  side.history.forEach(function (event) {
    list.append(el("li", {}, event.at.slice(0, 16).replace("T", " ") + " · " + event.kind + " " + (event.dimension || "") + ": " +
      answerText(event.values || []) + " (" + (event.method || "") + (event.by ? ", " + event.by : "") + ")" +
      (event.reason ? " · " + event.reason.replace(/_/g, " ") : "") + (event.rationale ? " — " + event.rationale : "")));
  });
  byId("history").replaceChildren(el("h3", { text: "Decisions" }), side.history.length ? list : el("p", { className: "muted small", text: "None yet." }));
}

function render(side) {
  state.side = side;
  byId("item-ref").textContent = side.report.ref;
  document.title = "Adjudicate " + side.report.ref + document.title.slice(document.title.indexOf(" · "));
  byId("history-link").href = urlFor(config.urls.history, side.item);
  byId("state").textContent = side.final ? "final" : side.disputed.length ? "disputed on " + side.disputed.join(", ") : "waiting for final labels";
  byId("reopen").hidden = !side.final;
  byId("submit").hidden = side.final;
  renderAnnotators(side);
  renderDimensions(side);
  renderHistory(side);
  const firstDisputed = side.dimensions.findIndex((d) => d.disputed);
  setCurrent(firstDisputed >= 0 ? firstDisputed : 0);
}

async function fetchItem(id) {
  const names = state.realNames ? "?names=real" : "";
  const [side, report] = await Promise.all([
    api("GET", urlFor(config.urls.side, id) + names),
    api("GET", urlFor(config.urls.report, id)),
  ]);
  return { side: side, report: report, queue: null };
}

async function fetchNext(afterId) {
  const query = new URLSearchParams();
  if (afterId !== null) query.set("after", afterId);
  if (state.realNames) query.set("names", "real");
  const side = await api("GET", config.urls.next + "?" + query.toString());
  if (state.countPending && state.side && state.side.item === afterId) {
    // The item opened by its address: how many wait is known once the next is fetched.
    const waiting = side === null ? (state.side.final ? 0 : 1) : side.queue;
    byId("waiting").textContent = waiting + " waiting for a lead";
    state.countPending = false;
  }
  if (side === null) return null;
  const report = await api("GET", urlFor(config.urls.report, side.item));
  return { side: side, report: report, queue: side.queue };
}

function show(entry, how) {
  for (const id of ["side-by-side", "item-links", "desk-keys"]) byId(id).hidden = false;
  byId("desk-empty").hidden = true;
  byId("submit").disabled = false;
  state.choices = {};
  renderReport(byId("report"), entry.report);
  render(entry.side);
  if (how === "pop") setStatus("");
  state.countPending = entry.queue === null;
  if (entry.queue !== null) {
    // Counted when it was fetched, the item just decided among them.
    const waiting = how === "push" && state.decided ? entry.queue - 1 : entry.queue;
    byId("waiting").textContent = waiting + " waiting for a lead";
  }
  state.decided = false;
  byId("desk").dataset.item = String(entry.side.item);
}

function showEmpty() {
  state.side = null;
  for (const id of ["side-by-side", "item-links", "desk-keys"]) byId(id).hidden = true;
  byId("desk-empty").hidden = false;
  byId("item-ref").textContent = "none left";
  byId("waiting").textContent = "0 waiting for a lead";
  byId("desk").dataset.item = "";
  setStatus("");
}

const desk = createDesk({
  fetchItem: fetchItem,
  fetchNext: fetchNext,
  show: show,
  showEmpty: showEmpty,
  pageUrl: (id) => urlFor(config.urls.page, id),
  emptyUrl: config.urls.queue,
});

function decisions() {
  const out = {};
  state.side.dimensions.forEach(function (dimension) {
    const choice = choiceOf(dimension.key);
    if (choice.values === null) return;
    const value = dimension.multiple ? choice.values : (choice.values[0] === undefined ? null : choice.values[0]);
    out[dimension.key] = { value: value, rationale: choice.rationale, reason: choice.reason };
  });
  return out;
}

function errorText(error) {
  const fields = Object.entries(error.fields || {}).map(([name, messages]) => name + ": " + [].concat(messages).join(" "));
  return [error.message].concat(fields).join(" · ");
}

// The dimensions a refused decision's changes name, marked until the lead decides again.
function changedKeys(changes) {
  const keys = new Set();
  changes.forEach(function (change) {
    (change.dimensions || []).forEach((key) => keys.add(key));
    if (change.dimension) keys.add(change.dimension);
  });
  return keys;
}

function markChanged(keys) {
  byId("dimensions").querySelectorAll(".dimension").forEach(function (card) {
    card.classList.toggle("changed", keys.has(card.dataset.dimension));
  });
}

async function submit() {
  if (state.busy || !state.side || state.side.final) return;
  const body = decisions();
  if (!Object.keys(body).length) {
    setStatus("Pick an answer first (1–9, or o for another).", true);
    return;
  }
  state.busy = true;
  byId("submit").disabled = true;
  setStatus("Deciding…");
  let side;
  try {
    side = await api("POST", urlFor(config.urls.adjudicate, state.side.item), { decisions: body, seen: state.side.seen });
  } catch (error) {
    state.busy = false;
    byId("submit").disabled = false;
    if (error.status === 409 && error.body && error.body.current) {
      // The labels changed since they were read: shown again as they are now, the
      // dimensions that changed marked. The lead's rationale and reason stay; an answer picked
      // on a changed dimension is picked again, as it may be gone.
      const changed = changedKeys(error.body.changes || []);
      changed.forEach(function (key) {
        Object.assign(choiceOf(key), { values: null, other: false });
      });
      render(error.body.current);
      markChanged(changed);
      if (state.realNames) rereadNames().then(() => markChanged(changed));
      setStatus("Not decided: " + error.message, true);
      return;
    }
    setStatus("Not decided: " + errorText(error), true);
    return;
  }
  if (side.final) {
    // Busy until the next item shows: a second Enter must not decide the final item again.
    const ref = side.report.ref;
    state.decided = true;
    try {
      await desk.next(false);
      setStatus("Decided " + ref + ": final.");
    } catch (error) {
      setStatus("Decided " + ref + ", but the next item did not load: " + errorText(error), true);
    }
    state.busy = false;
    return;
  }
  state.busy = false;
  byId("submit").disabled = false;
  state.choices = {};
  render(side);
  setStatus("Decided; " + side.disputed.join(", ") + " still to decide.");
}

// The item shown, read again under the names asked for; the lead's picks stay.
async function rereadNames() {
  const id = state.side.item;
  const side = await api("GET", urlFor(config.urls.side, id) + (state.realNames ? "?names=real" : ""));
  if (state.side && state.side.item === id) render(side);
}

async function passOver() {
  if (state.busy || !state.side) return;
  const ref = state.side.report.ref;
  try {
    if (!(await desk.next(true))) setStatus("No other item waits for a lead.");
    else setStatus("Passed over " + ref + "; it stays in the queue.");
  } catch (error) {
    setStatus("The next item did not load: " + errorText(error), true);
  }
}

async function reopen() {
  try {
    render(await api("POST", urlFor(config.urls.reopen, state.side.item), { rationale: byId("reopen-rationale").value }));
    setStatus("Reopened: the item waits for a lead again.");
  } catch (error) {
    setStatus(errorText(error), true);
  }
}

function pick(number) {
  const dimension = state.side.dimensions[state.current];
  const answer = dimension.answers[number];
  if (!answer) return;
  const choice = choiceOf(dimension.key);
  choice.values = answer.values.slice();
  choice.other = false;
  byId("dimensions").children[state.current].querySelector(".other-picker").hidden = true;
  markChosen();
}

function pickOther() {
  const card = byId("dimensions").children[state.current];
  const picker = card.querySelector(".other-picker");
  picker.hidden = false;
  picker.focus();
}

function setReason(value) {
  const dimension = state.side.dimensions[state.current];
  choiceOf(dimension.key).reason = value;
  const input = byId("dimensions").children[state.current].querySelector('input[value="' + value + '"]');
  input.checked = true;
}

document.addEventListener("keydown", function (event) {
  if (!state.side || event.altKey || event.metaKey) return;
  const target = event.target;
  const inText = target.closest("textarea, input[type=text]") !== null;
  if (event.key === "Escape" && target.closest("textarea, select, input")) {
    target.blur();
    return;
  }
  if (event.key === "Enter" && !state.side.final && (!inText || event.ctrlKey) && !target.closest("button, a, summary")) {
    event.preventDefault();
    submit();
    return;
  }
  if (inText || event.ctrlKey || target.closest("select")) return;
  if (event.key === "n") passOver();
  else if (/^[1-9]$/.test(event.key)) pick(Number(event.key) - 1);
  else if (event.key === "o") pickOther();
  else if (event.key === "j") setCurrent(state.current + 1);
  else if (event.key === "k") setCurrent(state.current - 1);
  else if (event.key === "r") byId("dimensions").children[state.current].querySelector(".rationale").focus();
  else if (REASON_KEYS[event.key]) setReason(REASON_KEYS[event.key]);
  else return;
  event.preventDefault();
});

byId("submit").addEventListener("click", submit);
byId("pass").addEventListener("click", passOver);
byId("reopen-button").addEventListener("click", reopen);
byId("names").addEventListener("click", function () {
  state.realNames = !state.realNames;
  byId("names").setAttribute("aria-pressed", String(state.realNames));
  byId("names").textContent = state.realNames ? "Show pseudonyms" : "Show names";
  if (state.side === null) return;
  rereadNames().catch((error) => setStatus(errorText(error), true));
  desk.refetchAhead();
});

desk.open(config.item).catch((error) => setStatus("The item did not load: " + errorText(error), true));
