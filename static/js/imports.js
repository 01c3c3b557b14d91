// Live progress of import jobs: polls /api/imports/ and updates the rows of the table.
(function () {
  "use strict";
  var table = document.getElementById("import-jobs");
  if (!table) { return; }
  var endpoint = table.getAttribute("data-endpoint");
  var ACTIVE = { queued: true, running: true, waiting: true };

  function text(row, selector, value) {
    var cell = row.querySelector(selector);
    if (cell) { cell.textContent = value; }
  }

  function eta(seconds) {
    if (seconds === null || seconds === undefined) { return "—"; }
    if (seconds < 90) { return seconds + " s"; }
    if (seconds < 5400) { return Math.round(seconds / 60) + " min"; }
    return (seconds / 3600).toFixed(1) + " h";
  }

  function update(job) {
    var row = table.querySelector('tr[data-job="' + job.id + '"]');
    if (!row) { return; }
    var bar = row.querySelector("progress");
    if (bar) {
      bar.max = job.reports_total || 0;
      bar.value = job.reports_done;
    }
    text(row, ".done", job.reports_done);
    text(row, ".total", job.reports_total === null ? "?" : job.reports_total);
    text(row, ".requests", job.api_requests);
    text(row, ".not-modified", job.api_requests_not_modified);
    text(row, ".remaining", job.rate_limit_remaining === null ? "—" : job.rate_limit_remaining);
    text(row, ".eta", eta(job.eta_seconds));
    var active = !!ACTIVE[job.status];
    row.querySelectorAll(".when-active").forEach(function (form) { form.hidden = !active; });
    row.querySelectorAll(".when-finished").forEach(function (form) { form.hidden = active; });
    var status = row.querySelector(".status");
    if (status) {
      status.textContent = job.status_display;
      if (job.error_reason) {
        var reason = document.createElement("div");
        reason.className = "error small reason";
        reason.textContent = job.error_reason;
        status.appendChild(reason);
      }
      if (job.stalled) {
        var stalled = document.createElement("div");
        stalled.className = "error small stalled";
        stalled.setAttribute("data-testid", "stalled");
        stalled.textContent = job.stalled;
        status.appendChild(stalled);
      }
    }
  }

  function poll() {
    fetch(endpoint, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) { return; }
        var jobs = data.results || data;
        var active = false;
        jobs.forEach(function (job) {
          update(job);
          if (ACTIVE[job.status]) { active = true; }
        });
        window.setTimeout(poll, active ? 2000 : 10000);
      })
      .catch(function () { window.setTimeout(poll, 10000); });
  }
  poll();
})();
