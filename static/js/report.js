// One bug report as the report API gives it (mining.serializers.ReportDetailSerializer): its
// head, its body, its fixes with their patches, and its comments.
//
// Bodies arrive as HTML the server rendered from Markdown and sanitized (mining.markdown);
// that HTML is the only markup inserted as such: every other text goes in as text. Raw
// Markdown (`body`) is never rendered here.

import { day, el, outLink, plural } from "./dom.js";

// A fix is a commit or a pull request; several links (kinds of evidence) may name the same.
export function fixesOf(links) {
  const fixes = new Map();
  links.forEach(function (link) {
    let fix = fixes.get(link.target);
    if (!fix) {
      fix = {
        target: link.target,
        strength: link.strength,
        reverted: false,
        evidence: [],
        commit: link.commit,
        pullRequest: link.pull_request,
      };
      fixes.set(link.target, fix);
    }
    fix.evidence.push(link.evidence_display);
    fix.reverted = fix.reverted || link.reverted;
    if (link.strength === "strong") fix.strength = "strong";
  });
  return Array.from(fixes.values());
}

// Replaces what `box` holds with the report.
export function renderReport(box, report) {
  const stateText = report.state + (report.state_reason ? " (" + report.state_reason.replace(/_/g, " ") + ")" : "");
  const head = el("header", { className: "report-head" },
    el("p", { className: "report-ref" },
      outLink(report.html_url, report.repository + "#" + report.number), " ",
      el("span", { className: "state state-" + report.state, text: stateText })),
    el("h2", { className: "report-title", "data-testid": "report-title", text: report.title }));
  const meta = el("p", { className: "meta small muted" });
  meta.append("opened " + day(report.created_at) + (report.author_login ? " by " + report.author_login : ""));
  if (report.closed_at) meta.append(" · closed " + day(report.closed_at));
  if (report.updated_at) meta.append(" · updated " + day(report.updated_at));
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
  body.innerHTML = report.body_html || "<p><em>No description.</em></p>";

  const comments = el("section", { className: "comments" },
    el("h3", { text: plural(report.comments.length, "comment") }));
  report.comments.forEach(function (comment) {
    const text = el("div", { className: "markdown" });
    // Sanitized on the server, as above.
    text.innerHTML = comment.body_html;
    comments.append(el("article", { className: "comment" },
      el("header", { className: "small" },
        el("strong", { text: comment.author_login || "(deleted user)" }), " ",
        el("span", { className: "muted", text: day(comment.created_at) })),
      text));
  });

  const fixes = fixesOf(report.fix_links);
  const fixList = el("section", { className: "fixes", "data-testid": "fixes" },
    el("h3", { text: fixes.length ? "Fix" : "Fix: none linked" }));
  fixes.forEach(function (fix) {
    fixList.append(renderFix(fix));
  });

  box.replaceChildren(head, body, fixList, comments);
  box.querySelectorAll(".markdown a").forEach(function (link) {
    link.target = "_blank";
    link.rel = "noopener noreferrer nofollow";
  });
  box.scrollTop = 0;
}

function stats(additions, deletions) {
  if (additions === null || additions === undefined) return "";
  return el("span", { className: "stats" },
    el("span", { className: "added", text: "+" + additions }), " ",
    el("span", { className: "removed", text: "−" + deletions }));
}

function renderFix(fix) {
  const head = el("header", { className: "fix-head" });
  const pr = fix.pullRequest;
  if (pr && !pr.imported) {
    // Only its number is known: no title, and no state it may no longer have.
    head.append(outLink(pr.html_url, "PR #" + pr.number), " ",
      el("span", { className: "muted", text: "(not imported)" }));
  } else if (pr) {
    head.append(outLink(pr.html_url, "PR #" + pr.number), " ",
      el("span", { className: "fix-title", text: pr.title }), " ",
      el("span", { className: "badge", text: pr.merged ? "merged" : pr.state }), " ",
      stats(pr.additions, pr.deletions));
  }
  const commit = fix.commit;
  if (commit) {
    head.append(outLink(commit.html_url, "commit " + commit.sha.slice(0, 10)), " ",
      stats(commit.additions, commit.deletions),
      commit.changed_files !== null ? " in " + plural(commit.changed_files, "file") : "");
  }
  head.append(" ", el("span", { className: "badge strength-" + fix.strength, text: fix.strength }));
  if (fix.reverted) head.append(" ", el("span", { className: "badge warn", text: "reverted" }));
  const article = el("article", { className: "fix" }, head,
    el("p", { className: "evidence small muted", text: "Evidence: " + fix.evidence.join("; ") }));
  if (commit) {
    if (commit.message) article.append(el("pre", { className: "commit-message", text: commit.message }));
    commit.files.forEach(function (file, index) {
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
  const patch = file.patch || "";
  const diff = el("pre", { className: "diff" });
  patch.replace(/\n$/, "").split("\n").forEach(function (line) {
    let kind = "context";
    if (line.startsWith("@@")) kind = "hunk";
    else if (line.startsWith("+")) kind = "add";
    else if (line.startsWith("-")) kind = "del";
    diff.append(el("span", { className: "line " + kind, text: line + "\n" }));
  });
  const details = el("details", { className: "file", open: open }, summary,
    patch ? diff : el("p", { className: "muted small", text: "No patch (binary or too large)." }));
  if (file.patch_truncated) details.append(el("p", { className: "muted small", text: "The patch is cut short here; the rest is on GitHub." }));
  return details;
}
