// Live progress of import jobs: polls /api/imports/ and updates the rows of the table.

import { byId, el } from "./dom.js";

const table = byId("import-jobs");
const ACTIVE = new Set(["queued", "running", "waiting"]);

function text(row, selector, value) {
  const cell = row.querySelector(selector);
  if (cell) cell.textContent = value;
}

function eta(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  if (seconds < 90) return seconds + " s";
  if (seconds < 5400) return Math.round(seconds / 60) + " min";
  return (seconds / 3600).toFixed(1) + " h";
}

function update(job) {
  const row = table.querySelector('tr[data-job="' + job.id + '"]');
  if (!row) return;
  const bar = row.querySelector("progress");
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
  const active = ACTIVE.has(job.status);
  row.querySelectorAll(".when-active").forEach((form) => { form.hidden = !active; });
  row.querySelectorAll(".when-finished").forEach((form) => { form.hidden = active; });
  const status = row.querySelector(".status");
  if (status) {
    status.textContent = job.status_display;
    if (job.error_reason) status.append(el("div", { className: "error small reason", text: job.error_reason }));
    if (job.stalled) status.append(el("div", { className: "error small stalled", "data-testid": "stalled", text: job.stalled }));
  }
}

function poll() {
  fetch(table.dataset.endpoint, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : null))
    .then(function (data) {
      if (!data) return;
      const jobs = data.results || data;
      jobs.forEach(update);
      window.setTimeout(poll, jobs.some((job) => ACTIVE.has(job.status)) ? 2000 : 10000);
    })
    .catch(() => window.setTimeout(poll, 10000));
}

if (table) poll();
