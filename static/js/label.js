// The labelling page: one report at a time, labels chosen from the keyboard.
// It drives the study API (next, submit, skip, progress, previous). The report's
// Markdown arrives as HTML the server rendered and sanitized (mining.markdown); that HTML is
// the only markup inserted as such: every other text goes in through textContent.
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("label-config").textContent);
  const csrfToken = document.querySelector("input[name=csrfmiddlewaretoken]").value;
  const byId = (id) => document.getElementById(id);
  const app = byId("label-app");

  // ---------------------------------------------------------------- small helpers

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(function ([name, value]) {
      if (value === null || value === undefined || value === false) return;
      if (name === "text") node.textContent = value;
      else if (name === "className") node.className = value;
      else node.setAttribute(name, value === true ? "" : String(value));
    });
    children.forEach(function (child) {
      if (child === null || child === undefined) return;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    });
    return node;
  }

  // Only http(s) addresses become links: a stored URL cannot smuggle in `javascript:`.
  function outLink(href, text) {
    if (!/^https?:\/\//i.test(href || "")) return el("span", { text: text });
    return el("a", { href: href, target: "_blank", rel: "noopener noreferrer", text: text });
  }

  function urlFor(template, id) {
    return template.replace("{id}", encodeURIComponent(String(id)));
  }

  function day(iso) {
    if (!iso) return "";
    const date = new Date(iso);
    return date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  function plural(count, word) {
    return count + " " + word + (count === 1 ? "" : "s");
  }

  async function api(method, url, body) {
    const headers = { Accept: "application/json", "X-CSRFToken": csrfToken };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 204) return null;
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = null;
    }
    if (!response.ok) {
      const error = new Error((data && data.message) || "The server answered " + response.status + ".");
      error.fields = (data && data.fields) || {};
      throw error;
    }
    return data;
  }

  // ---------------------------------------------------------------- the scheme

  const dims = config.dimensions.map(function (dimension) {
    const byPath = new Map();
    const children = new Map();
    dimension.categories.forEach(function (category) {
      byPath.set(category.path, category);
      const parent = category.parent || "";
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(category);
    });
    return Object.assign({}, dimension, { byPath: byPath, children: children });
  });

  function optionsAt(dim, level) {
    return dim.children.get(level || "") || [];
  }

  function hasChildren(dim, category) {
    return optionsAt(dim, category.path).length > 0;
  }

  function selectable(dim, category) {
    return !(dim.leafOnly && hasChildren(dim, category));
  }

  function nameOf(dim, path) {
    const names = [];
    let category = dim.byPath.get(path);
    while (category) {
      names.unshift(category.name);
      category = category.parent ? dim.byPath.get(category.parent) : null;
    }
    return names.join(" › ") || path;
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

  // Time on the current item, counted only while the tab is visible.
  const clock = { spent: 0, since: null };

  function clockMs() {
    return clock.spent + (clock.since === null ? 0 : performance.now() - clock.since);
  }

  function clockStart(ms) {
    clock.spent = ms || 0;
    clock.since = document.visibilityState === "visible" ? performance.now() : null;
    renderTimer();
  }

  function clockStop() {
    clock.spent = clockMs();
    clock.since = null;
    return clock.spent;
  }

  function renderTimer() {
    const seconds = Math.floor(clockMs() / 1000);
    byId("timer").textContent =
      Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      if (state.current && clock.since === null) clock.since = performance.now();
    } else if (clock.since !== null) {
      clockStop();
    }
  });
  setInterval(renderTimer, 1000);

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
    fitControls();
  }

  function render() {
    byId("dimensions").replaceChildren.apply(
      byId("dimensions"),
      dims.map(function (dim, index) {
        return renderDimension(dim, index);
      })
    );
    renderDefinition();
    byId("note").closest(".field").classList.toggle("has-error", Boolean(state.errors.note));
    document.querySelector("[data-error-for=note]").textContent = state.errors.note || "";
    if (state.mode !== "label") return;
    // The whole focused dimension when it fits, and in any case its highlighted option.
    const focused = document.querySelector(".dim.focused");
    if (focused) focused.scrollIntoView({ block: "nearest" });
    const highlighted = document.querySelector(".dim.focused .option.highlighted");
    if (highlighted) highlighted.scrollIntoView({ block: "nearest" });
  }

  // The controls column sticks beside the report and ends at the bottom of the window (or of
  // the report, when that comes first), so the definition at its foot is always on screen;
  // its dimensions scroll on their own.
  function fitControls() {
    const controls = byId("controls");
    const style = getComputedStyle(controls);
    if (style.position !== "sticky" || byId("label-columns").hidden) {
      controls.style.removeProperty("height");
      return;
    }
    const gap = parseFloat(style.top) || 0;
    const top = Math.max(controls.getBoundingClientRect().top, gap);
    const bottom = Math.min(window.innerHeight - gap, byId("report").getBoundingClientRect().bottom);
    controls.style.height = Math.max(bottom - top, 240) + "px";
  }

  let fitPending = false;
  function fitControlsSoon() {
    if (fitPending) return;
    fitPending = true;
    requestAnimationFrame(function () {
      fitPending = false;
      fitControls();
    });
  }
  window.addEventListener("scroll", fitControlsSoon, { passive: true });
  window.addEventListener("resize", fitControlsSoon);

  function renderDimension(dim, index) {
    const focused = index === state.focus && state.mode === "label";
    const error = state.errors["labels." + dim.key];
    const section = el("section", {
      className: "dim" + (focused ? " focused" : "") + (error ? " has-error" : ""),
      "data-dim": dim.key,
      "data-testid": "dim-" + dim.key,
      "aria-current": focused ? "true" : null,
    });
    section.addEventListener("click", function () {
      state.focus = index;
      render();
    });
    const rules = [dim.multiple ? "choose any" : "choose one", dim.required ? "required" : "optional"];
    if (dim.leafOnly) rules.push("most specific only");
    section.append(
      el("h3", {}, el("span", { className: "dim-name", text: dim.name }), " ",
        el("span", { className: "rules", text: rules.join(" · ") }))
    );

    const chosen = state.chosen[dim.key];
    const chosenLine = el("p", { className: "chosen", "data-testid": "chosen-" + dim.key });
    if (chosen.length) {
      chosen.forEach(function (path) {
        chosenLine.append(el("span", { className: "chip", "data-path": path, text: nameOf(dim, path) }));
      });
    } else {
      chosenLine.append(el("span", { className: "muted", text: "nothing chosen yet" }));
    }
    section.append(chosenLine);

    const level = state.level[dim.key];
    if (level) {
      section.append(
        el("p", { className: "crumbs small" },
          el("span", { className: "muted", text: "Inside " }),
          el("strong", { text: nameOf(dim, level) }),
          el("span", { className: "muted", text: " · Backspace goes up" }))
      );
    }

    const list = el("ol", {
      className: "options",
      role: "listbox",
      "aria-label": dim.name,
      "aria-multiselectable": dim.multiple ? "true" : "false",
    });
    optionsAt(dim, level).forEach(function (category, position) {
      const isChosen = chosen.includes(category.path);
      const within = chosen.some(function (path) {
        return path.startsWith(category.path + "/");
      });
      const highlighted = focused && position === state.highlight[dim.key];
      const item = el("li", {
        className:
          "option" + (isChosen ? " chosen" : "") + (within ? " within" : "") +
          (highlighted ? " highlighted" : ""),
        role: "option",
        "aria-selected": isChosen ? "true" : "false",
        "data-path": category.path,
      });
      item.append(
        el("kbd", { text: position < 99 ? String(position + 1) : "" }),
        el("span", { className: "option-name", text: category.name })
      );
      if (hasChildren(dim, category)) {
        item.append(el("span", { className: "more", title: "has sub-categories", text: "›" }));
      }
      item.addEventListener("click", function (event) {
        event.stopPropagation();
        digitCancel();
        state.focus = index;
        state.highlight[dim.key] = position;
        choose(dim, category);
      });
      list.append(item);
    });
    section.append(list);
    if (error) section.append(el("p", { className: "error small", "data-error-for": "labels." + dim.key, text: error }));
    return section;
  }

  function describedCategory(dim) {
    const options = optionsAt(dim, state.level[dim.key]);
    const highlighted = options[state.highlight[dim.key]];
    if (highlighted) return highlighted;
    if (state.level[dim.key]) return dim.byPath.get(state.level[dim.key]);
    const chosen = state.chosen[dim.key];
    return chosen.length ? dim.byPath.get(chosen[chosen.length - 1]) : null;
  }

  function renderDefinition() {
    const box = byId("definition");
    const dim = dims[state.focus];
    const category = dim && state.mode === "label" ? describedCategory(dim) : null;
    const described = dim && state.mode === "label" ? dim.key + ":" + (category ? category.path : "") : "";
    const changed = box.dataset.described !== described;
    box.dataset.described = described;
    if (!described) {
      box.replaceChildren();
    } else if (!category) {
      box.replaceChildren(el("h4", { text: dim.name }));
      if (dim.help) box.append(el("p", { text: dim.help }));
      box.append(el("p", { className: "muted small", text: "↑ ↓ highlight an option to read its definition." }));
    } else {
      box.replaceChildren.apply(box, categoryDescription(category));
    }
    if (changed) box.scrollTop = 0;
    box.classList.toggle("overflowing", box.scrollHeight > box.clientHeight + 1);
  }

  function categoryDescription(category) {
    const parts = [
      el("h4", {}, category.name, " ", el("code", { className: "muted", text: category.path })),
    ];
    if (category.definition) parts.push(el("p", { text: category.definition }));
    if (category.include || category.exclude) {
      const criteria = el("dl", { className: "criteria" });
      if (category.include) criteria.append(el("dt", { text: "Choose it when" }), el("dd", { text: category.include }));
      if (category.exclude) criteria.append(el("dt", { text: "Not when" }), el("dd", { text: category.exclude }));
      parts.push(criteria);
    }
    if (category.examples && category.examples.length) {
      parts.push(el("p", { className: "small muted", text: "Examples" }));
      const list = el("ul", { className: "examples" });
      category.examples.forEach(function (example) {
        list.append(el("li", { text: example }));
      });
      parts.push(list);
    }
    return parts;
  }

  function renderReport(report) {
    const box = byId("report");
    const state_ = report.state + (report.stateReason ? " (" + report.stateReason.replace(/_/g, " ") + ")" : "");
    const head = el("header", { className: "report-head" },
      el("p", { className: "report-ref" },
        outLink(report.url, report.repository + "#" + report.number), " ",
        el("span", { className: "state state-" + report.state, text: state_ })),
      el("h2", { className: "report-title", "data-testid": "report-title", text: report.title }));
    const meta = el("p", { className: "meta small muted" });
    meta.append("opened " + day(report.createdAt) + (report.author ? " by " + report.author : ""));
    if (report.closedAt) meta.append(" · closed " + day(report.closedAt));
    if (report.updatedAt) meta.append(" · updated " + day(report.updatedAt));
    if (report.milestone) meta.append(" · milestone " + report.milestone);
    head.append(meta);
    if (report.labels.length) {
      const labels = el("ul", { className: "gh-labels" });
      report.labels.forEach(function (label) {
        labels.append(el("li", { text: label }));
      });
      head.append(labels);
    }

    const body = el("section", { className: "markdown report-body", "data-testid": "report-body" });
    // Rendered from Markdown and sanitized by the server (mining.markdown.render_markdown).
    body.innerHTML = report.bodyHtml || "<p><em>No description.</em></p>";

    const comments = el("section", { className: "comments" },
      el("h3", { text: plural(report.comments.length, "comment") }));
    report.comments.forEach(function (comment) {
      const text = el("div", { className: "markdown" });
      // Sanitized on the server, as above.
      text.innerHTML = comment.bodyHtml;
      comments.append(el("article", { className: "comment" },
        el("header", { className: "small" },
          el("strong", { text: comment.author || "(deleted user)" }), " ",
          el("span", { className: "muted", text: day(comment.createdAt) })),
        text));
    });

    const fixes = el("section", { className: "fixes", "data-testid": "fixes" },
      el("h3", { text: report.fixes.length ? "Fix" : "Fix: none linked" }));
    report.fixes.forEach(function (fix) {
      fixes.append(renderFix(fix));
    });

    box.replaceChildren(head, body, fixes, comments);
    box.querySelectorAll(".markdown a").forEach(function (link) {
      link.target = "_blank";
      link.rel = "noopener noreferrer nofollow";
    });
    box.querySelectorAll(".markdown img").forEach(function (image) {
      image.loading = "lazy";
      image.referrerPolicy = "no-referrer";
    });
    box.scrollTop = 0;
    window.scrollTo(0, 0);
  }

  function stats(additions, deletions) {
    if (additions === null || additions === undefined) return "";
    return el("span", { className: "stats" },
      el("span", { className: "added", text: "+" + additions }), " ",
      el("span", { className: "removed", text: "−" + deletions }));
  }

  function renderFix(fix) {
    const head = el("header", { className: "fix-head" });
    if (fix.pullRequest && !fix.pullRequest.imported) {
      // Only its number is known: no title, and no state it may no longer have.
      head.append(outLink(fix.pullRequest.url, "PR #" + fix.pullRequest.number), " ",
        el("span", { className: "muted", text: "(not imported)" }));
    } else if (fix.pullRequest) {
      const pr = fix.pullRequest;
      head.append(outLink(pr.url, "PR #" + pr.number), " ",
        el("span", { className: "fix-title", text: pr.title }), " ",
        el("span", { className: "badge", text: pr.merged ? "merged" : pr.state }), " ",
        stats(pr.additions, pr.deletions));
    }
    if (fix.commit) {
      const commit = fix.commit;
      head.append(outLink(commit.url, "commit " + commit.sha.slice(0, 10)), " ",
        stats(commit.additions, commit.deletions),
        commit.changedFiles !== null ? " in " + plural(commit.changedFiles, "file") : "");
    }
    head.append(" ", el("span", { className: "badge strength-" + fix.strength, text: fix.strength }));
    if (fix.reverted) head.append(" ", el("span", { className: "badge warn", text: "reverted" }));
    const article = el("article", { className: "fix" }, head,
      el("p", { className: "evidence small muted", text: "Evidence: " + fix.evidence.join("; ") }));
    if (fix.commit) {
      if (fix.commit.message) article.append(el("pre", { className: "commit-message", text: fix.commit.message }));
      fix.commit.files.forEach(function (file, index) {
        article.append(renderFile(file, index < 3));
      });
    }
    return article;
  }

  function renderFile(file, open) {
    const summary = el("summary", {},
      el("code", { text: file.filename }), " ",
      el("span", { className: "muted", text: file.status }), " ",
      stats(file.additions, file.deletions));
    const diff = el("pre", { className: "diff" });
    file.patch.replace(/\n$/, "").split("\n").forEach(function (line) {
      let kind = "context";
      if (line.startsWith("@@")) kind = "hunk";
      else if (line.startsWith("+")) kind = "add";
      else if (line.startsWith("-")) kind = "del";
      diff.append(el("span", { className: "line " + kind, text: line + "\n" }));
    });
    const details = el("details", { className: "file", open: open }, summary,
      file.patch ? diff : el("p", { className: "muted small", text: "No patch (binary or too large)." }));
    if (file.patchTruncated) details.append(el("p", { className: "muted small", text: "The patch is cut short here; the rest is on GitHub." }));
    return details;
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
    if (state.current) state.timers.set(state.current.assignment, clockStop());
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
    clockStart(state.timers.get(entry.assignment) || 0);
    try {
      const report = await api("GET", urlFor(config.urls.report, entry.item));
      if (state.current !== entry) return;
      renderReport(report);
      fitControls();
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
      clockStart(0);
      clockStop();
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
      seconds: Math.max(1, Math.ceil(clockMs() / 1000)),
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
    clockStop();
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
    clockStop();
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

  // ---------------------------------------------------------------- keyboard

  // In a list of more than 9 options, options 10 and up take two digits. A digit that can
  // start such a number waits this long for the second one before it picks its own option.
  const SECOND_DIGIT_MS = 600;
  const MODIFIER_KEYS = ["Shift", "Control", "Alt", "Meta", "CapsLock"];
  let pendingDigit = null; // {dim, level, digit, timer}

  function pickNumber(dim, options, number) {
    if (number >= 1 && number <= options.length) {
      state.highlight[dim.key] = number - 1;
      choose(dim, options[number - 1]);
    } else {
      setStatus(dim.name + " has no option " + number + " here.", true);
    }
  }

  function digitCancel() {
    if (!pendingDigit) return null;
    const pending = pendingDigit;
    clearTimeout(pending.timer);
    pendingDigit = null;
    setStatus("");
    return pending;
  }

  // The waiting digit picks its own option: after the pause, or when another key comes.
  function digitFlush() {
    const pending = digitCancel();
    if (!pending || state.mode !== "label") return;
    if (dims[state.focus] !== pending.dim || state.level[pending.dim.key] !== pending.level) return;
    pickNumber(pending.dim, optionsAt(pending.dim, pending.level), pending.digit);
  }

  function digitKey(dim, options, digit) {
    const pending = digitCancel();
    if (pending && pending.dim === dim && pending.level === state.level[dim.key]) {
      pickNumber(dim, options, pending.digit * 10 + digit);
      return;
    }
    if (digit > 0 && digit * 10 <= options.length) {
      state.highlight[dim.key] = digit - 1;
      pendingDigit = {
        dim: dim,
        level: state.level[dim.key],
        digit: digit,
        timer: setTimeout(digitFlush, SECOND_DIGIT_MS),
      };
      const last = Math.min(digit * 10 + 9, options.length);
      setStatus(digit + "… a second digit picks " + digit + "0 to " + last + ".");
      return;
    }
    pickNumber(dim, options, digit);
  }

  function labelKey(event) {
    const key = event.key;
    // On a focused link or button, Tab, Enter and Space keep their usual meaning.
    const onControl = event.target !== document.body && event.target.matches("a, button, input");
    if (onControl && (key === "Tab" || key === "Enter" || key === " ")) return;
    const isDigit = /^[0-9]$/.test(key);
    if (!isDigit && !MODIFIER_KEYS.includes(key)) digitFlush();
    const dim = dims[state.focus];
    const options = optionsAt(dim, state.level[dim.key]);
    if (isDigit) {
      digitKey(dim, options, Number(key));
    } else if (key === "Tab") {
      // No wrapping: after the last dimension comes the note, never the first dimension again.
      if (event.shiftKey) {
        state.focus = Math.max(state.focus - 1, 0);
      } else if (state.focus < dims.length - 1) {
        state.focus += 1;
      } else {
        event.preventDefault();
        byId("note").focus();
        return;
      }
    } else if ((key === "ArrowDown" || key === "ArrowUp") && event.shiftKey) {
      byId("definition").scrollBy({ top: key === "ArrowDown" ? 80 : -80 });
    } else if (key === "ArrowDown" || key === "ArrowUp") {
      const step = key === "ArrowDown" ? 1 : -1;
      const current = state.highlight[dim.key];
      state.highlight[dim.key] = current < 0
        ? (step > 0 ? 0 : options.length - 1)
        : (current + step + options.length) % options.length;
    } else if (key === " ") {
      const highlighted = options[state.highlight[dim.key]];
      if (highlighted) choose(dim, highlighted);
    } else if (key === "ArrowRight") {
      const highlighted = options[state.highlight[dim.key]];
      if (highlighted && hasChildren(dim, highlighted)) {
        state.level[dim.key] = highlighted.path;
        state.highlight[dim.key] = -1;
      }
    } else if (key === "Backspace" || key === "Escape" || key === "ArrowLeft") {
      if (!up(dim) && key === "Escape" && state.current && state.current.revising) {
        loadNext();
      }
    } else if (key === "Delete") {
      clearDimension(dim);
    } else if (key === "Enter") {
      submit();
    } else if (key === "h") {
      if (!byId("history-link").hidden) byId("history-link").click();
    } else if (key === "u") {
      byId("unsure").checked = !byId("unsure").checked;
    } else if (key === "n") {
      byId("note").focus();
    } else if (key === "s") {
      enterSkip();
    } else if (key === "p") {
      previous();
    } else {
      return;
    }
    event.preventDefault();
    render();
  }

  function skipKey(event) {
    const key = event.key;
    if (/^[1-9]$/.test(key) && Number(key) <= config.skipReasons.length) {
      skip(config.skipReasons[Number(key) - 1]);
    } else if (key === "Escape" || key === "Backspace") {
      setMode("label");
    } else {
      return;
    }
    event.preventDefault();
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.metaKey) return;
    const target = event.target;
    if (!byId("shortcuts").hidden) {
      if (event.key === "Escape" || event.key === "?") {
        event.preventDefault();
        toggleHelp(false);
      }
      return;
    }
    if (target.matches("textarea, input:not([type=checkbox]), select")) {
      if (target === byId("note") && event.key === "Tab" && event.shiftKey && state.mode === "label") {
        // Back from the note to the last dimension.
        event.preventDefault();
        target.blur();
        state.focus = dims.length - 1;
        render();
      } else if (event.key === "Enter" && event.ctrlKey) {
        event.preventDefault();
        target.blur();
        submit();
      } else if (event.key === "Escape") {
        event.preventDefault();
        target.blur();
      }
      return;
    }
    if (event.ctrlKey) return;
    if (event.key === "?") {
      event.preventDefault();
      toggleHelp(true);
      return;
    }
    if (state.busy) {
      if (event.key === "Enter") event.preventDefault();
      return;
    }
    if (state.mode === "label") labelKey(event);
    else if (state.mode === "skip") skipKey(event);
    else if (state.mode === "done" && event.key === "p") {
      event.preventDefault();
      previous();
    }
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
})();
