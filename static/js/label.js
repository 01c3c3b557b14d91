// The labelling page: one report at a time, labels chosen from the keyboard. It drives the
// study API (next, submit, skip, progress, previous) and shows, by report.js, the report that
// `next` brings with each item (an earlier item's, to revise, from the item report address). Unsaved choices live in a draft in the
// browser (label_draft.js) until they are submitted. In an open-coding study each dimension
// also takes codes written by the annotator (label_codes.js), and the note is a memo.

import { api } from "./api.js";
import { byId, el, plural } from "./dom.js";
import { visibleClock } from "./label_clock.js";
import { labelCodes } from "./label_codes.js";
import { labelControls } from "./label_controls.js";
import { labelDrafts } from "./label_draft.js";
import { labelKeys } from "./label_keys.js";
import { hasChildren, nameOf, optionsAt, schemeDimensions, selectable } from "./label_scheme.js";
import { renderReport } from "./report.js";

const config = JSON.parse(byId("label-config").textContent);
const app = byId("label-app");
const dims = schemeDimensions(config.dimensions);
const drafts = labelDrafts({ user: config.me, study: config.study.slug });

function urlFor(template, id) {
  return template.replace("{id}", encodeURIComponent(String(id)));
}

// ---------------------------------------------------------------- state

const state = {
  mode: "loading", // loading | label | skip | waiting | done
  current: null, // {assignment, item, labels, codes, note, unsure, version, revising, ref}
  chosen: {}, // dimension key -> [category paths]
  codes: {}, // dimension key -> [codes as written] (open coding)
  level: {}, // dimension key -> path of the category whose sub-categories are shown ("" top)
  highlight: {}, // dimension key -> index of the highlighted option (-1: none)
  focus: 0, // index of the focused dimension
  errors: {}, // field name ("labels.<key>", "note") -> message; codes' go under their labels
  timers: new Map(), // assignment id -> milliseconds spent before it was left
  busy: false,
  conflict: null, // {current: {labels, note, unsure, version}, body} while the choice is open
};

dims.forEach(function (dim) {
  state.chosen[dim.key] = [];
  state.codes[dim.key] = [];
  state.level[dim.key] = "";
  state.highlight[dim.key] = -1;
});

const clock = visibleClock(byId("timer"));
const codes = config.open
  ? labelCodes({
      dims: dims,
      state: state,
      config: config,
      page: {
        render: render,
        setStatus: setStatus,
        submit: function () {
          submit();
        },
        focusNote: function () {
          byId("note").focus();
        },
      },
    })
  : null;
const controls = labelControls({
  dims: dims,
  state: state,
  noteMax: config.noteMax,
  codes: codes,
  onChoose: function (dim, category) {
    keys.digitCancel();
    choose(dim, category);
  },
});

function render() {
  controls.render();
  keepDraft();
}

// ---------------------------------------------------------------- rendering

function setStatus(text, isError) {
  const status = byId("status");
  status.textContent = text || "";
  status.classList.toggle("error", Boolean(isError));
  controls.fit();
}

function setMode(mode) {
  state.mode = mode;
  app.dataset.state = mode;
  const finished = mode === "done" || mode === "waiting";
  byId("label-columns").hidden = finished;
  byId("done").hidden = !finished;
  byId("skip-panel").hidden = mode !== "skip";
  byId("label-form").classList.toggle("dimmed", mode === "skip");
  render();
  controls.fit();
}

function setBar(id, value, max) {
  byId(id).max = Math.max(max, 1);
  byId(id).value = value;
  byId(id + "-text").textContent = value + " / " + max;
}

async function refreshProgress() {
  let progress;
  try {
    progress = await api("GET", config.urls.progress);
  } catch (_) {
    return;
  }
  const mine = progress.per_annotator.find(function (row) {
    return row.username === config.me;
  }) || { submitted: 0 };
  // Your share of the work: what you submitted out of that and what is still open to you.
  setBar("progress-mine", mine.submitted, mine.submitted + progress.open_to_you);
  setBar("progress-study", progress.complete_items, progress.items);
}

// ---------------------------------------------------------------- drafts

function choicesNow() {
  const labels = {};
  const written = {};
  dims.forEach(function (dim) {
    labels[dim.key] = state.chosen[dim.key].slice();
    if (state.codes[dim.key].length) written[dim.key] = state.codes[dim.key].slice();
  });
  return { labels: labels, codes: written, note: byId("note").value, unsure: byId("unsure").checked };
}

function sameChoices(a, b) {
  const same = function (x, y) {
    return JSON.stringify(x || []) === JSON.stringify(y || []);
  };
  return (
    (a.note || "") === (b.note || "") &&
    Boolean(a.unsure) === Boolean(b.unsure) &&
    dims.every(function (dim) {
      return same(a.labels[dim.key], b.labels[dim.key]) && same((a.codes || {})[dim.key], (b.codes || {})[dim.key]);
    })
  );
}

// The item's draft follows every change; choices back to what is stored need none.
function keepDraft() {
  const entry = state.current;
  if (!entry || (state.mode !== "label" && state.mode !== "skip")) return;
  const now = choicesNow();
  if (sameChoices(now, entry)) {
    drafts.clear(entry.assignment);
    return;
  }
  drafts.write(entry.assignment, {
    chosen: now.labels,
    codes: now.codes,
    note: now.note,
    unsure: now.unsure,
    version: entry.version,
    revising: entry.revising,
    item: entry.item,
    ref: entry.ref,
  });
}

// ---------------------------------------------------------------- actions

async function open(entry) {
  if (state.current) state.timers.set(state.current.assignment, clock.stop());
  const draft = drafts.read(entry.assignment);
  // A draft revises the version it was made on: if another was saved since, submitting it
  // shows both.
  const shown = draft
    ? Object.assign({}, entry, { version: draft.version })
    : entry;
  const choices = draft
    ? { labels: draft.chosen, codes: draft.codes || {}, note: draft.note, unsure: draft.unsure }
    : entry;
  state.current = shown;
  state.errors = {};
  state.focus = 0;
  dims.forEach(function (dim) {
    const chosen = (choices.labels[dim.key] || []).slice();
    state.chosen[dim.key] = chosen;
    const single = !dim.multiple && chosen.length === 1 ? dim.byPath.get(chosen[0]) : null;
    state.level[dim.key] = single && single.parent ? single.parent : "";
    state.highlight[dim.key] = -1;
    state.codes[dim.key] = ((choices.codes || {})[dim.key] || []).slice();
  });
  if (codes) codes.reset();
  // A new item starts on its first dimension, also for the keyboard: no field keeps focus.
  if (byId("controls").contains(document.activeElement)) document.activeElement.blur();
  byId("note").value = choices.note || "";
  byId("unsure").checked = Boolean(choices.unsure);
  byId("form-error").textContent = "";
  byId("revising").hidden = !shown.revising;
  byId("revising").textContent = shown.revising ? "revising your submission (version " + entry.version + ")" : "";
  showRelabel(shown.relabel || {});
  byId("item-ref").textContent = shown.ref || "";
  byId("item-ref").title = shown.ref || "";
  byId("history-link").href = urlFor(config.urls.history, shown.item);
  byId("history-link").hidden = false;
  byId("report").replaceChildren(el("p", { className: "muted", text: "Loading the report…" }));
  setMode("label");
  clock.start(state.timers.get(shown.assignment) || 0);
  if (draft) {
    const when = new Date(draft.saved).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    setStatus("Your unsaved choices for this item are back (kept in this browser at " + when + ").");
  }
  try {
    // `next` brings the report with the item; a revision of an earlier item reads it.
    const report = shown.report || await api("GET", urlFor(config.urls.report, shown.item));
    if (state.current !== shown) return;
    showReport(report);
    window.scrollTo(0, 0);
    if (shown.report && lacksPatches(report)) askForPatches(shown);
  } catch (error) {
    setStatus("The report did not load: " + error.message, true);
  }
}

// The item report asks for the fix commits' patches (fetched there without a worker) and
// brings them when they are in; the item stays in use meanwhile.
async function askForPatches(shown) {
  try {
    const report = await api("GET", urlFor(config.urls.report, shown.item));
    if (state.current === shown && !lacksPatches(report)) showReport(report);
  } catch (error) {
    // The report is shown already; only its patches are missing.
  }
}

function showReport(report) {
  renderReport(byId("report"), report);
  controls.fit();
  const ref = report.repository + "#" + report.number;
  byId("item-ref").textContent = ref;
  byId("item-ref").title = ref;
}

// A fix commit whose per-file patches are not in yet: no files, though it changed some.
function lacksPatches(report) {
  return report.fix_links.some(function (link) {
    return link.commit && !link.commit.files.length && link.commit.changed_files !== 0;
  });
}

// A submission a codebook revision flagged: what the annotator had on each dimension to
// label again, and what those categories became, as context (never chosen for them).
function showRelabel(relabel) {
  const box = byId("relabel");
  const parts = dims.filter(function (dim) {
    return relabel[dim.key];
  }).map(function (dim) {
    const flagged = relabel[dim.key];
    const was = flagged.was.map(function (path) {
      const into = (flagged.into[path] || []).map(function (to) {
        return nameOf(dim, to);
      });
      return "“" + path + "” (" + (into.length ? "now " + into.join(" or ") : "removed") + ")";
    });
    return dim.name + ": you had " + was.join(", ");
  });
  box.textContent = parts.length
    ? "The codebook changed since you labelled this item; label again " + parts.join("; ") + "."
    : "";
  box.hidden = !parts.length;
}

let lookAgainTimer = null;

function minutesText(seconds) {
  return seconds < 90 ? "a minute" : plural(Math.ceil(seconds / 60), "minute");
}

function finish(answer) {
  state.current = null;
  clock.start(0);
  clock.stop();
  byId("item-ref").textContent = "";
  byId("history-link").hidden = true;
  byId("revising").hidden = true;
  showRelabel({});
  clearTimeout(lookAgainTimer);
  const waiting = answer && answer.held_by_others > 0;
  if (waiting) {
    const seconds = answer.retry_after_seconds;
    const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    byId("done-title").textContent = "Nothing free for you right now";
    const one = answer.held_by_others === 1;
    byId("done-text").textContent =
      plural(answer.held_by_others, "item") + (one ? " is" : " are") +
      " held by others and may come back to you (if they skip " + (one ? "it" : "them") +
      " or their hold runs out); look again in " + minutesText(seconds) +
      ". This page looks again by itself at " + at + ".";
    lookAgainTimer = setTimeout(function () {
      if (state.mode === "waiting") loadNext("Looking again…");
    }, seconds * 1000);
  } else if (answer && answer.waiting_for_others > 0) {
    byId("done-title").textContent = "Nothing more for you: items wait for other annotators";
    byId("done-text").textContent =
      plural(answer.waiting_for_others, "item") +
      (answer.waiting_for_others === 1 ? " waits" : " wait") +
      " for other annotators before " + (answer.waiting_for_others === 1 ? "it is" : "they are") +
      " complete: " + answer.overlap_warning + ". Your labels are saved.";
  } else {
    byId("done-title").textContent = "All done: nothing is left for you in this study";
    byId("done-text").textContent =
      "Every item has all its annotations, or you labelled or skipped it; nothing can come back to you. Thank you!";
  }
  byId("look-again-row").hidden = !waiting;
  setMode(waiting ? "waiting" : "done");
}

// `loading` is what the status says until the next item is there; then it is cleared.
async function loadNext(loading) {
  setStatus(loading || "Loading the next item…");
  setMode("loading");
  let data;
  try {
    data = await api("POST", config.urls.next);
  } catch (error) {
    setStatus(error.message, true);
    return;
  }
  refreshProgress();
  if (!data || data.assignment === null) {
    setStatus("");
    finish(data);
    return;
  }
  // A submission flagged for re-labelling comes back as a revision of what it has now.
  const relabel = data.relabel || {};
  if (Object.keys(relabel).length) {
    let assignment;
    try {
      assignment = await api("GET", urlFor(config.urls.assignment, data.assignment));
    } catch (error) {
      setStatus(error.message, true);
      return;
    }
    await open(Object.assign(revisionEntry(assignment), { relabel: relabel, report: data.report }));
    if (!drafts.read(data.assignment)) setStatus("");
    return;
  }
  await open({
    assignment: data.assignment,
    item: data.item,
    labels: {},
    codes: data.codes || {},
    note: "",
    unsure: false,
    version: data.version,
    revising: false,
    ref: data.report ? data.report.repository + "#" + data.report.number : "",
    report: data.report,
  });
  if (!drafts.read(data.assignment)) setStatus("");
}

// The dimension a field of an error is about: labels.<key>, or codes.<key> and codes.<key>[n].
function dimOf(field) {
  return dims.find(function (d) {
    return field === "labels." + d.key || field === "codes." + d.key || field.startsWith("codes." + d.key + "[");
  });
}

function fieldName(field) {
  const dim = dimOf(field);
  if (!dim) return field;
  const at = /\[(\d+)\]$/.exec(field);
  return field.startsWith("codes.") ? dim.name + " codes" + (at ? " (code " + (Number(at[1]) + 1) + ")" : "") : dim.name;
}

// Every problem named with what it is about, at the Submit button and in the status line:
// both are in view whatever is scrolled. Each also shows next to its dimension or the note.
function showErrors(error) {
  state.errors = {};
  const named = [];
  Object.entries(error.fields || {}).forEach(function ([field, messages]) {
    const message = [].concat(messages).join(" ");
    const dim = dimOf(field);
    if (dim) {
      const key = "labels." + dim.key;
      state.errors[key] = state.errors[key] ? state.errors[key] + " " + message : message;
    } else if (field === "note") {
      state.errors[field] = message;
    }
    named.push(fieldName(field) + ": " + message);
  });
  const firstBad = dims.findIndex(function (dim) {
    return state.errors["labels." + dim.key];
  });
  if (firstBad >= 0) state.focus = firstBad;
  const text = named.length ? named.join("; ") : error.message;
  byId("form-error").textContent = text;
  setStatus("Not saved: " + text, true);
  render();
}

function submissionBody(version) {
  const now = choicesNow();
  const body = {
    labels: now.labels,
    note: now.note,
    unsure: now.unsure,
    seconds: Math.max(1, Math.ceil(clock.ms() / 1000)),
    version: version,
  };
  if (config.open) body.codes = now.codes;
  return body;
}

async function submit(version) {
  if (!state.current || state.busy || state.mode !== "label") return;
  // A code still typed in its box goes with the submission.
  if (codes && !codes.commitAll()) return;
  const entry = state.current;
  const body = submissionBody(version === undefined ? entry.version : version);
  state.busy = true;
  setStatus("Saving…");
  let saved;
  try {
    saved = await api("POST", urlFor(config.urls.submit, entry.assignment), body);
  } catch (error) {
    state.busy = false;
    if (error.status === 409 && error.body && error.body.current) {
      setStatus("");
      openConflict(error.body.current, body);
      return;
    }
    showErrors(error);
    return;
  }
  state.busy = false;
  drafts.clear(entry.assignment);
  state.timers.delete(entry.assignment);
  clock.stop();
  state.current = null;
  await loadNext();
  setStatus(entry.revising || body.version > 0
    ? "Revision saved as version " + saved.version + " of " + entry.ref + "."
    : "Saved your labels for " + entry.ref + ".");
}

function labelsList(box, choices, other) {
  const rows = [];
  dims.forEach(function (dim) {
    const paths = choices.labels[dim.key] || [];
    const differs = JSON.stringify(paths) !== JSON.stringify(other.labels[dim.key] || []);
    const names = paths.map(function (path) {
      return nameOf(dim, path);
    });
    rows.push(el("dt", { text: dim.name }), el("dd", { className: differs ? "differs" : null, text: names.join(", ") || "(nothing)" }));
    if (config.open) {
      const written = (choices.codes || {})[dim.key] || [];
      const codesDiffer = JSON.stringify(written) !== JSON.stringify((other.codes || {})[dim.key] || []);
      rows.push(el("dt", { text: dim.name + " codes" }), el("dd", { className: codesDiffer ? "differs" : null, text: written.join("; ") || "(none)" }));
    }
  });
  rows.push(
    el("dt", { text: config.open ? "Memo" : "Note" }),
    el("dd", { className: (choices.note || "") !== (other.note || "") ? "differs" : null, text: choices.note || "(none)" }),
    el("dt", { text: "Unsure" }),
    el("dd", { className: Boolean(choices.unsure) !== Boolean(other.unsure) ? "differs" : null, text: choices.unsure ? "yes" : "no" })
  );
  box.replaceChildren.apply(box, rows);
}

function openConflict(current, body) {
  state.conflict = { current: current, body: body };
  const mine = { labels: body.labels, codes: body.codes, note: body.note, unsure: body.unsure };
  byId("conflict-text").textContent =
    "You changed version " + body.version + " of " + state.current.ref + ", but version " +
    current.version + " was saved since, from another tab or window. Which one should stay?";
  byId("conflict-theirs-title").textContent = "Saved (version " + current.version + ")";
  labelsList(byId("conflict-theirs"), current, mine);
  labelsList(byId("conflict-mine"), mine, current);
  byId("conflict").hidden = false;
  // The safe choice is the default: a stray Enter never overwrites what was saved.
  byId("keep-theirs").focus();
}

function closeConflict() {
  byId("conflict").hidden = true;
  state.conflict = null;
  document.activeElement.blur();
}

function keepMine() {
  const current = state.conflict.current;
  closeConflict();
  state.current.version = current.version;
  submit(current.version);
}

async function keepTheirs() {
  const entry = state.current;
  const current = state.conflict.current;
  closeConflict();
  drafts.clear(entry.assignment);
  state.timers.delete(entry.assignment);
  clock.stop();
  state.current = null;
  await loadNext();
  setStatus("Kept the saved version " + current.version + " of " + entry.ref + "; your changes were dropped.");
}

async function skip(reason) {
  if (!state.current || state.busy) return;
  const entry = state.current;
  state.busy = true;
  setStatus("Skipping " + entry.ref + "…");
  try {
    await api("POST", urlFor(config.urls.skip, entry.assignment), {
      reason: reason.value,
      note: byId("note").value,
    });
  } catch (error) {
    state.busy = false;
    setMode("label");
    showErrors(error);
    return;
  }
  state.busy = false;
  drafts.clear(entry.assignment);
  state.timers.delete(entry.assignment);
  clock.stop();
  state.current = null;
  await loadNext("Skipped " + entry.ref + " (" + reason.label.toLowerCase() + "); loading the next item…");
}

function revisionEntry(assignment) {
  return {
    assignment: assignment.id,
    item: assignment.item,
    labels: assignment.labels,
    codes: assignment.codes || {},
    note: assignment.note,
    unsure: assignment.unsure,
    version: assignment.version,
    revising: true,
    ref: assignment.report,
  };
}

const REVISING_TEXT = ": change what you like and press Enter; Esc at the top goes back to your current item.";

async function previous() {
  if (state.busy) return;
  const revising = state.current && state.current.revising;
  const url = config.urls.previous + (revising ? "?before=" + encodeURIComponent(state.current.assignment) : "");
  let assignment;
  try {
    assignment = await api("GET", url);
  } catch (error) {
    setStatus(error.message, true);
    return;
  }
  if (!assignment) {
    setStatus(revising ? "That was your first submission in this study." : "You have not submitted anything in this study yet.");
    return;
  }
  const restored = Boolean(drafts.read(assignment.id));
  await open(revisionEntry(assignment));
  if (!restored) setStatus("Revising " + assignment.report + REVISING_TEXT);
}

// Its number (or Space) chooses an option, and un-chooses it when it is chosen already. An
// option with sub-categories opens them when it is chosen, or when it cannot be chosen. The
// focus stays on the dimension: Tab moves on.
function choose(dim, category) {
  const chosen = state.chosen[dim.key];
  const children = hasChildren(dim, category);
  delete state.errors["labels." + dim.key];
  const at = chosen.indexOf(category.path);
  if (at >= 0) {
    chosen.splice(at, 1);
    render();
    return;
  }
  const within = chosen.some(function (path) {
    return path.startsWith(category.path + "/");
  });
  const canChoose = selectable(dim, category);
  if (canChoose && !dim.multiple) {
    chosen.splice(0, chosen.length, category.path);
  } else if (canChoose && !within) {
    // A more specific choice replaces its ancestors (and a more general one only opens).
    const kept = chosen.filter(function (path) {
      return !category.path.startsWith(path + "/");
    });
    chosen.splice(0, chosen.length, ...kept, category.path);
  }
  if (children) {
    state.level[dim.key] = category.path;
    state.highlight[dim.key] = -1;
  }
  render();
}

function clearDimension(dim) {
  state.chosen[dim.key] = [];
  delete state.errors["labels." + dim.key];
  setStatus(dim.name + ": nothing chosen now.");
}

function up(dim) {
  const level = state.level[dim.key];
  if (!level) return false;
  const category = dim.byPath.get(level);
  state.level[dim.key] = category.parent || "";
  state.highlight[dim.key] = optionsAt(dim, state.level[dim.key]).indexOf(category);
  return true;
}

function enterSkip() {
  if (state.current && state.current.revising) {
    setStatus("You submitted this item already: change its labels instead of skipping it.", true);
    return;
  }
  const list = byId("skip-reasons");
  list.replaceChildren.apply(list, config.skipReasons.map(function (reason, index) {
    const item = el("li", { className: "option", "data-reason": reason.value },
      el("kbd", { text: String(index + 1) }), el("span", { text: reason.label }));
    item.addEventListener("click", function () {
      skip(reason);
    });
    return item;
  }));
  setMode("skip");
  byId("skip-panel").scrollIntoView({ block: "nearest" });
}

function toggleHelp(show) {
  byId("shortcuts").hidden = !show;
  // Focus in the box, so that the arrow and page keys scroll it when it is taller than the window.
  if (show) byId("shortcuts-box").focus();
  else document.activeElement.blur();
}

const keys = labelKeys({
  dims: dims,
  state: state,
  codes: codes,
  skipReasons: config.skipReasons,
  page: {
    render: render,
    setStatus: setStatus,
    setMode: setMode,
    choose: choose,
    up: up,
    clearDimension: clearDimension,
    submit: function () {
      submit();
    },
    skip: skip,
    previous: previous,
    loadNext: loadNext,
    enterSkip: enterSkip,
    toggleHelp: toggleHelp,
    closeConflict: closeConflict,
  },
});

// ---------------------------------------------------------------- mouse and fields

byId("label-form").addEventListener("submit", function (event) {
  event.preventDefault();
  submit();
});
byId("note").addEventListener("input", render);
byId("unsure").addEventListener("change", render);
byId("skip-button").addEventListener("click", enterSkip);
byId("previous-button").addEventListener("click", previous);
byId("look-again").addEventListener("click", function () {
  loadNext("Looking again…");
});
byId("keep-mine").addEventListener("click", keepMine);
byId("keep-theirs").addEventListener("click", keepTheirs);
byId("help-button").addEventListener("click", function () {
  toggleHelp(true);
});
byId("shortcuts").addEventListener("click", function (event) {
  if (event.target === byId("shortcuts")) toggleHelp(false);
});

// A revision left unsaved (a reload, a closed tab) opens again first; Esc goes on to the
// current item.
async function start() {
  drafts.prune();
  const revision = drafts.latestRevision();
  if (revision) {
    try {
      const assignment = await api("GET", urlFor(config.urls.assignment, revision.assignment));
      if (assignment && assignment.status === "submitted") {
        await open(revisionEntry(assignment));
        refreshProgress();
        return;
      }
    } catch (_) {
      // Gone or no longer yours: the draft goes, the page carries on.
    }
    drafts.clear(revision.assignment);
  }
  loadNext();
}

render();
start();
