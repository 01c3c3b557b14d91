// The disagreement queue by keyboard: j / k move through the items, Enter opens the one marked.
import { byId } from "./dom.js";

const rows = Array.from(byId("queue").querySelectorAll("tbody tr[data-href]"));
let current = rows.length ? 0 : -1;

function mark(index) {
  rows.forEach((row, at) => row.classList.toggle("current", at === index));
  if (index >= 0) {
    rows[index].setAttribute("aria-current", "true");
    rows[index].focus({ preventScroll: true });
    rows[index].scrollIntoView({ block: "nearest" });
  }
}

function typing(target) {
  return target.closest("input, select, textarea, [contenteditable]") !== null;
}

document.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target) || current < 0) return;
  if (event.key === "j" || event.key === "ArrowDown") current = Math.min(current + 1, rows.length - 1);
  else if (event.key === "k" || event.key === "ArrowUp") current = Math.max(current - 1, 0);
  else if (event.key === "Enter" && !event.target.closest("a, button")) {
    window.location.assign(rows[current].dataset.href);
    return;
  } else return;
  event.preventDefault();
  rows.forEach((row) => row.removeAttribute("aria-current"));
  mark(current);
});

mark(current);
