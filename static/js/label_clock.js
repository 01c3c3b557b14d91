// Time on the current item, counted only while the tab is visible, shown in `display`.

export function visibleClock(display) {
  let spent = 0;
  let since = null; // when the visible stretch being counted began; null: not counting
  let running = false;

  function ms() {
    return spent + (since === null ? 0 : performance.now() - since);
  }

  function show() {
    const seconds = Math.floor(ms() / 1000);
    display.textContent = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      if (running && since === null) since = performance.now();
    } else if (since !== null) {
      spent = ms();
      since = null;
    }
  });
  setInterval(show, 1000);

  return {
    ms: ms,
    // Count from `startMs` (time spent on the item before it was left).
    start(startMs) {
      spent = startMs || 0;
      running = true;
      since = document.visibilityState === "visible" ? performance.now() : null;
      show();
    },
    // Stop counting; the time spent so far.
    stop() {
      spent = ms();
      since = null;
      running = false;
      return spent;
    },
  };
}
