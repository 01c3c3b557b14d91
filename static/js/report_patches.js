// A report whose patches are being fetched: ask the API until they are in, then reload.
(function () {
  "use strict";
  var notice = document.getElementById("patches-pending");
  if (!notice) { return; }
  var endpoint = notice.getAttribute("data-endpoint");
  var tries = 0;

  function poll() {
    tries += 1;
    fetch(endpoint, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (report) {
        if (report && !report.patches.pending) { window.location.reload(); return; }
        if (tries < 150) { window.setTimeout(poll, 2000); }
      })
      .catch(function () { window.setTimeout(poll, 5000); });
  }
  window.setTimeout(poll, 1000);
})();
