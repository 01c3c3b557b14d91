// A report whose patches are being fetched: ask the API until they are in, then reload.

import { byId } from "./dom.js";

const notice = byId("patches-pending");
let tries = 0;

function poll() {
  tries += 1;
  fetch(notice.dataset.endpoint, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : null))
    .then(function (report) {
      if (report && !report.patches.pending) {
        window.location.reload();
        return;
      }
      if (tries < 150) window.setTimeout(poll, 2000);
    })
    .catch(() => window.setTimeout(poll, 5000));
}

if (notice) window.setTimeout(poll, 1000);
