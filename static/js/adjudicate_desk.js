// The adjudication desk's way through the queue, apart from what it shows: the next
// disagreement is fetched (side by side and its report) while the lead reads the current one,
// so that a decision shows the next item without waiting; the address names the item shown
// (history.pushState), and Back and Forward show the item their address names. The server
// stays the judge: what was fetched ahead is shown as fetched, and a decision on labels that
// changed since is refused by the adjudication API.

export function createDesk(options) {
  // options: {fetchItem(id), fetchNext(afterId), show(entry, how), showEmpty(), pageUrl(id),
  // emptyUrl}; an entry is {side, report, queue}.
  let shownId = null;
  let ahead = null; // {after, promise}

  function fetchAhead(afterId) {
    // A failure is kept for when the entry is asked for: then it is fetched again.
    const promise = options.fetchNext(afterId).catch(function () {
      return undefined;
    });
    ahead = { after: afterId, promise: promise };
  }

  function display(entry, how) {
    if (entry === null) {
      shownId = null;
      options.showEmpty();
      if (how === "push") history.pushState({ empty: true }, "", options.emptyUrl);
      return;
    }
    shownId = entry.side.item;
    options.show(entry, how);
    const address = options.pageUrl(shownId);
    if (how === "push") history.pushState({ item: shownId }, "", address);
    else if (how === "replace") history.replaceState({ item: shownId }, "", address);
    fetchAhead(shownId);
  }

  async function entryAfter(afterId) {
    let entry = ahead && ahead.after === afterId ? await ahead.promise : undefined;
    if (entry === undefined) entry = await options.fetchNext(afterId);
    return entry;
  }

  window.addEventListener("popstate", function (event) {
    const wanted = event.state || {};
    if (wanted.empty) {
      shownId = null;
      options.showEmpty();
    } else if (wanted.item) {
      options.fetchItem(wanted.item).then((entry) => display(entry, "pop"));
    }
  });

  return {
    // The item the page was opened on.
    async open(id) {
      display(await options.fetchItem(id), "replace");
    },
    // After a final decision: the next disagreement, or the empty desk. Passing over the
    // item (`passing`) when no other waits leaves it shown and answers false.
    async next(passing) {
      const entry = await entryAfter(shownId);
      if (entry === null && passing) return false;
      display(entry, "push");
      return true;
    },
    // What was fetched ahead is fetched again (e.g. with names shown).
    refetchAhead() {
      if (shownId !== null) fetchAhead(shownId);
    },
  };
}
