// Unsaved choices of the item open on the labelling page, kept in this browser
// (localStorage) per user, study and assignment until they are submitted or skipped, so that
// a reload, the Back button or a closed tab loses nothing. A draft remembers the version it
// revises: submitting it after another was saved elsewhere is a conflict the page shows.

const PREFIX = "bug-labeler.draft";
const KEEP_MS = 14 * 24 * 3600 * 1000;

export function labelDrafts({ user, study }) {
  // Usernames and slugs never hold a space.
  const prefix = [PREFIX, user, study, ""].join(" ");

  function storage() {
    try {
      return window.localStorage;
    } catch (_) {
      return null; // storage refused (a privacy setting): no drafts, nothing breaks
    }
  }

  function read(assignment) {
    const store = storage();
    if (!store) return null;
    try {
      return JSON.parse(store.getItem(prefix + assignment));
    } catch (_) {
      return null;
    }
  }

  // `draft`: {chosen, note, unsure, version, revising, item, ref}.
  function write(assignment, draft) {
    const store = storage();
    if (!store) return;
    try {
      store.setItem(prefix + assignment, JSON.stringify(Object.assign({}, draft, { saved: Date.now() })));
    } catch (_) {
      // A full storage keeps the choices on the page only.
    }
  }

  function clear(assignment) {
    const store = storage();
    if (store) store.removeItem(prefix + assignment);
  }

  function all() {
    const store = storage();
    const found = [];
    if (!store) return found;
    for (let index = 0; index < store.length; index += 1) {
      const key = store.key(index);
      if (!key || !key.startsWith(prefix)) continue;
      const assignment = key.slice(prefix.length);
      const draft = read(assignment);
      if (draft) found.push({ assignment: Number(assignment), draft: draft });
    }
    return found;
  }

  // The newest draft of a revision (a submission reopened with `p`), to reopen on load.
  function latestRevision() {
    return all()
      .filter(function (entry) {
        return entry.draft.revising;
      })
      .sort(function (a, b) {
        return b.draft.saved - a.draft.saved;
      })[0] || null;
  }

  function prune() {
    const now = Date.now();
    all().forEach(function (entry) {
      if (!(now - entry.draft.saved < KEEP_MS)) clear(entry.assignment);
    });
  }

  return { read: read, write: write, clear: clear, latestRevision: latestRevision, prune: prune };
}
