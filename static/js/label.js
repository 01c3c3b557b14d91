// The labelling page: one report at a time, labels chosen from the keyboard. It drives the
// study API (next, submit, skip, progress, previous) and reads each item's report from the
// page's item report address, shown by report.js.

import { api } from "./api.js";
import { byId, el } from "./dom.js";
import { visibleClock } from "./label_clock.js";
import { labelControls } from "./label_controls.js";
import { labelKeys } from "./label_keys.js";
import { hasChildren, optionsAt, schemeDimensions, selectable } from "./label_scheme.js";
import { renderReport } from "./report.js";

const config = JSON.parse(byId("label-config").textContent);
const app = byId("label-app");
const dims = schemeDimensions(config.dimensions);

function urlFor(template, id) {
  return template.replace("{id}", encodeURIComponent(String(id)));
}

// ---------------------------------------------------------------- state

const state = {
  mode: "loading", // loading | label | skip | done
  current: null, // {assignment, item, labels, note, unsure, version, revising, ref}
  chosen: {}, // dimension key -> [category paths]
  level: {}, // dimension key -> path of the category whose sub-categories are shown ("" top)
  highlight: {}, // dimension key -> index of the highlighted option (-1: none)
  focus: 0, // index of the focused dimension
  errors: {}, // field name ("labels.<key>", "note") -> message
  timers: new Map(), // assignment id -> milliseconds spent before it was left
  busy: false,
};

dims.forEach(function (dim) {
  state.chosen[dim.key] = [];
  state.level[dim.key] = "";
  state.highlight[dim.key] = -1;
});

const clock = visibleClock(byId("timer"));
const controls = labelControls({
  dims: dims,
  state: state,
  onChoose: function (dim, category) {
    keys.digitCancel();
    choose(dim, category);
  },
});
const render = controls.render;

// ---------------------------------------------------------------- rendering

function setStatus(text, isError) {
  const status = byId("status");
  status.textContent = text || "";
  status.classList.toggle("error", Boolean(isError));
}

function setMode(mode) {
  state.mode = mode;
  app.dataset.state = mode;
  byId("label-columns").hidden = mode === "done";
  byId("done").hidden = mode !== "done";
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
  }) || { submitted: 0, held: 0 };
  setBar("progress-mine", mine.submitted, mine.submitted + mine.held);
  setBar("progress-study", progress.complete_items, progress.items);
}

// ---------------------------------------------------------------- actions

async function open(entry) {
  if (state.current) state.timers.set(state.current.assignment, clock.stop());
  state.current = entry;
  state.errors = {};
  state.focus = 0;
  dims.forEach(function (dim) {
    const chosen = (entry.labels[dim.key] || []).slice();
    state.chosen[dim.key] = chosen;
    const single = !dim.multiple && chosen.length === 1 ? dim.byPath.get(chosen[0]) : null;
    state.level[dim.key] = single && single.parent ? single.parent : "";
    state.highlight[dim.key] = -1;
  });
  // A new item starts on its first dimension, also for the keyboard: no field keeps focus.
  if (byId("controls").contains(document.activeElement)) document.activeElement.blur();
  byId("note").value = entry.note || "";
  byId("unsure").checked = Boolean(entry.unsure);
  byId("form-error").textContent = "";
  byId("revising").hidden = !entry.revising;
  byId("revising").textContent = entry.revising ? "revising your submission (version " + entry.version + ")" : "";
  byId("item-ref").textContent = entry.ref || "";
  byId("history-link").href = urlFor(config.urls.history, entry.item);
  byId("history-link").hidden = false;
  byId("report").replaceChildren(el("p", { className: "muted", text: "Loading the report…" }));
  setMode("label");
  clock.start(state.timers.get(entry.assignment) || 0);
  try {
    const report = await api("GET", urlFor(config.urls.report, entry.item));
    if (state.current !== entry) return;
    renderReport(byId("report"), report);
    window.scrollTo(0, 0);
    controls.fit();
    byId("item-ref").textContent = report.repository + "#" + report.number;
  } catch (error) {
    setStatus("The report did not load: " + error.message, true);
  }
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
  if (!data) {
    state.current = null;
    clock.start(0);
    clock.stop();
    byId("item-ref").textContent = "";
    byId("history-link").hidden = true;
    byId("revising").hidden = true;
    setStatus("");
    setMode("done");
    return;
  }
  await open({
    assignment: data.assignment,
    item: data.item,
    labels: {},
    note: "",
    unsure: false,
    version: 0,
    revising: false,
    ref: data.report ? data.report.repository + "#" + data.report.number : "",
  });
  setStatus("");
}

function showErrors(error) {
  state.errors = {};
  const general = [];
  Object.entries(error.fields || {}).forEach(function ([field, messages]) {
    const message = [].concat(messages).join(" ");
    const isDimension = field.startsWith("labels.") && dims.some(function (dim) {
      return "labels." + dim.key === field;
    });
    if (isDimension || field === "note") state.errors[field] = message;
    else general.push(message);
  });
  const firstBad = dims.findIndex(function (dim) {
    return state.errors["labels." + dim.key];
  });
  if (firstBad >= 0) state.focus = firstBad;
  byId("form-error").textContent = general.length || !Object.keys(state.errors).length
    ? error.message
    : "Some labels need another look: see the messages next to them.";
  render();
}

async function submit() {
  if (!state.current || state.busy || state.mode !== "label") return;
  const labels = {};
  dims.forEach(function (dim) {
    labels[dim.key] = state.chosen[dim.key].slice();
  });
  const entry = state.current;
  const body = {
    labels: labels,
    note: byId("note").value,
    unsure: byId("unsure").checked,
    seconds: Math.max(1, Math.ceil(clock.ms() / 1000)),
  };
  state.busy = true;
  setStatus("Saving…");
  let saved;
  try {
    saved = await api("POST", urlFor(config.urls.submit, entry.assignment), body);
  } catch (error) {
    state.busy = false;
    setStatus("");
    showErrors(error);
    return;
  }
  state.busy = false;
  state.timers.delete(entry.assignment);
  clock.stop();
  state.current = null;
  await loadNext();
  setStatus(entry.revising
    ? "Revision saved as version " + saved.version + " of " + entry.ref + "."
    : "Saved your labels for " + entry.ref + ".");
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
  state.timers.delete(entry.assignment);
  clock.stop();
  state.current = null;
  await loadNext("Skipped " + entry.ref + " (" + reason.label.toLowerCase() + "); loading the next item…");
}

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
  await open({
    assignment: assignment.id,
    item: assignment.item,
    labels: assignment.labels,
    note: assignment.note,
    unsure: assignment.unsure,
    version: assignment.version,
    revising: true,
    ref: assignment.report,
  });
  setStatus("Revising " + assignment.report + ": change what you like and press Enter; Esc at the top goes back to your current item.");
}

// Its number (or Space) chooses an option, and un-chooses it when it is chosen already. An
// option with sub-categories opens them when it is chosen, or when it cannot be chosen.
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
  let advance = false;
  if (canChoose && !dim.multiple) {
    chosen.splice(0, chosen.length, category.path);
    advance = !children;
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
  if (advance && state.focus < dims.length - 1) state.focus += 1;
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
  skipReasons: config.skipReasons,
  page: {
    render: render,
    setStatus: setStatus,
    setMode: setMode,
    choose: choose,
    up: up,
    clearDimension: clearDimension,
    submit: submit,
    skip: skip,
    previous: previous,
    loadNext: loadNext,
    enterSkip: enterSkip,
    toggleHelp: toggleHelp,
  },
});

// ---------------------------------------------------------------- mouse

byId("label-form").addEventListener("submit", function (event) {
  event.preventDefault();
  submit();
});
byId("skip-button").addEventListener("click", enterSkip);
byId("previous-button").addEventListener("click", previous);
byId("help-button").addEventListener("click", function () {
  toggleHelp(true);
});
byId("shortcuts").addEventListener("click", function (event) {
  if (event.target === byId("shortcuts")) toggleHelp(false);
});

render();
loadNext();
