// Live filtering of the codebook page: hides categories (and their branches) that do not
// mention the search text; "/" focuses the search box.

import { byId } from "./dom.js";

const print = byId("codebook-print");
const input = byId("codebook-search");
const empty = byId("search-empty");

function filterBranch(li, needle) {
  const own = li.dataset.search.includes(needle);
  let childMatch = false;
  li.querySelectorAll(":scope > ul > li.category").forEach(function (child) {
    if (filterBranch(child, needle)) childMatch = true;
  });
  const visible = needle === "" || own || childMatch;
  li.hidden = !visible;
  li.classList.toggle("context-only", needle !== "" && !own && childMatch);
  return visible;
}

function apply() {
  const needle = input.value.trim().toLowerCase();
  let any = false;
  document.querySelectorAll("ul.tree.root > li.category").forEach(function (li) {
    if (filterBranch(li, needle)) any = true;
  });
  empty.hidden = any || needle === "";
}

if (print) print.addEventListener("click", () => window.print());
if (input) {
  input.addEventListener("input", apply);
  document.addEventListener("keydown", function (event) {
    if (event.key === "/" && document.activeElement !== input) {
      event.preventDefault();
      input.focus();
    }
  });
}
