// The agreement page keeps up as labels come in: every minute while the page is in view, and
// when the reader comes back to it, it asks the server for the page again (same settings) and
// swaps in the new tables, whose charts are then drawn again. Nothing is fetched while the
// page is hidden, so an open tab costs nothing.
import { renderCharts } from "./charts.js";
import { byId } from "./dom.js";

const EVERY_MS = 60000;
let busy = false;

async function refresh() {
  if (busy || document.visibilityState !== "visible") return;
  busy = true;
  try {
    const response = await fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.getElementById("agreement-body");
    const body = byId("agreement-body");
    if (!fresh || !body || fresh.innerHTML === body.dataset.served) return;
    body.dataset.served = fresh.innerHTML;
    body.replaceChildren(...Array.from(fresh.childNodes).map((node) => document.importNode(node, true)));
    renderCharts(body);
  } finally {
    busy = false;
  }
}

const body = byId("agreement-body");
if (body) body.dataset.served = body.innerHTML;
setInterval(refresh, EVERY_MS);
document.addEventListener("visibilitychange", refresh);
window.addEventListener("focus", refresh);
