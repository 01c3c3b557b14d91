// A background label import's page: polls /api/studies/{slug}/label-imports/{id}/ while the
// job is queued or running, and shows its state, the rows checked, then what it stored or its
// problems by line.
import { api } from "./api.js";
import { byId, el } from "./dom.js";

const ACTIVE = new Set(["queued", "running"]);
const POLL_MS = 1000;

function plural(count, one, many) {
  return count.toLocaleString("en") + " " + (count === 1 ? one : many || one + "s");
}

export function describe(job) {
  if (job.state === "queued") return "Waiting for a worker.";
  if (job.state === "running") {
    if (job.rows_checked < job.rows) {
      return "Checked " + job.rows_checked.toLocaleString("en") + " of " + plural(job.rows, "row") + ".";
    }
    return "All " + plural(job.rows, "row") + " checked; storing them.";
  }
  if (job.state === "done") {
    return "Stored " + plural(job.rows_written, "row") + ": " + plural(job.submissions, "submission") +
      ", " + plural(job.items_added, "new item") + ", " + plural(job.users_created, "new annotator") + ".";
  }
  return "Nothing was imported: " + plural(job.problem_count, "problem") + ".";
}

function show(section, job) {
  section.dataset.state = job.state;
  section.querySelector(".job-state").textContent = job.state_display;
  const bar = section.querySelector("progress");
  bar.max = job.rows;
  bar.value = job.state === "done" ? job.rows : job.rows_checked;
  section.querySelector(".job-progress-text").textContent = describe(job);
  const list = section.querySelector(".problems");
  list.replaceChildren(...job.problems.map((problem) => el("li", {}, el("code", { text: problem }))));
  list.hidden = job.problems.length === 0;
}

function start() {
  const section = byId("label-import-job");
  if (!section || !ACTIVE.has(section.dataset.state)) return;
  const endpoint = section.dataset.endpoint;
  async function poll() {
    let job = null;
    try {
      job = await api("GET", endpoint);
    } catch (_) {
      window.setTimeout(poll, 5 * POLL_MS);
      return;
    }
    show(section, job);
    if (ACTIVE.has(job.state)) window.setTimeout(poll, POLL_MS);
  }
  poll();
}

start();
