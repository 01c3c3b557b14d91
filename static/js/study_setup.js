// Study setup and batch pages: show only the chosen codebook's dimensions and the inputs of
// the chosen sampling mode; once the draw settings change, the preview no longer holds.

import { byId, el } from "./dom.js";

const codebook = byId("id_codebook");
const dimensionBoxes = document.querySelectorAll("input[name=dimensions]");
function showDimensions() {
  dimensionBoxes.forEach(function (box) {
    const mine = codebook.value !== "" && box.dataset.codebook === codebook.value;
    box.closest("div, li").hidden = !mine;
    if (!mine) box.checked = false;
  });
}
if (codebook && dimensionBoxes.length) {
  codebook.addEventListener("change", showDimensions);
  showDimensions();
}

document.querySelectorAll("[data-sample-fields]").forEach(function (group) {
  const modes = group.querySelectorAll("input[name=sample_mode]");
  function showMode() {
    const checked = group.querySelector("input[name=sample_mode]:checked");
    const mode = checked ? checked.value : "all";
    group.querySelectorAll("[data-sample-mode]").forEach(function (part) {
      part.hidden = part.dataset.sampleMode !== mode;
    });
  }
  modes.forEach(function (input) {
    input.addEventListener("change", showMode);
  });
  showMode();
});

// A long list of checkboxes (the repositories) gets a box that filters it as one types,
// and says how many are ticked, also among those filtered out.
document.querySelectorAll("div.checklist").forEach(function (list) {
  const boxes = Array.from(list.querySelectorAll("input[type=checkbox]"));
  const search = el("input", {
    type: "search", placeholder: "Type to filter the list",
    "aria-label": "Filter the list below", "data-testid": "checklist-filter",
  });
  const count = el("p", { className: "small muted", "data-testid": "checklist-count" });
  function update() {
    const words = search.value.trim().toLowerCase();
    let shown = 0;
    boxes.forEach(function (box) {
      const row = box.closest("div");
      const match = !words || row.textContent.toLowerCase().includes(words);
      row.hidden = !match;
      if (match) shown += 1;
    });
    const ticked = boxes.filter(function (box) {
      return box.checked;
    }).length;
    count.textContent = (ticked ? ticked + " ticked" : "none ticked") +
      (shown < boxes.length ? " · " + shown + " of " + boxes.length + " shown" : "");
  }
  search.addEventListener("input", update);
  // Enter in the filter box must not submit the form.
  search.addEventListener("keydown", function (event) {
    if (event.key === "Enter") event.preventDefault();
  });
  list.addEventListener("change", update);
  list.before(search, count);
  update();
});

// Offered only with script: it fills the keyword box with the seed study's list.
document.querySelectorAll("[data-fill-keywords]").forEach(function (button) {
  const box = byId(button.dataset.fillKeywords);
  if (!box) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    box.value = button.dataset.keywords;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  });
});

// The slug follows the name as the lead types it (as Django's slugify would make it), until
// the lead writes a slug of their own; emptying the slug box makes it follow again. The
// server checks the slug whatever fills it.
const SLUG_MAX = 100;
function slugify(text) {
  return text.normalize("NFKD").replace(/[^\x00-\x7f]/g, "").toLowerCase()
    .replace(/[^\w\s-]/g, "").trim().replace(/[-\s]+/g, "-").slice(0, SLUG_MAX)
    .replace(/^[-_]+|[-_]+$/g, "");
}
const nameBox = byId("id_name");
const slugBox = byId("id_slug");
if (nameBox && slugBox) {
  let follows = slugBox.value === "" || slugBox.value === slugify(nameBox.value);
  nameBox.addEventListener("input", function () {
    if (follows) slugBox.value = slugify(nameBox.value);
  });
  slugBox.addEventListener("input", function () {
    follows = slugBox.value === "";
  });
}

const form = document.querySelector("form.setup");
const preview = document.querySelector("[data-testid=sample-preview]");
const confirm = document.querySelector("[data-testid=create-study], [data-testid=draw-batch]");
if (form && preview && confirm) {
  form.addEventListener("input", function (event) {
    const name = event.target.name;
    if (name === "name" || name === "slug" || name === "guidelines") return;
    preview.classList.add("stale");
    confirm.disabled = true;
    confirm.textContent = "Settings changed: preview again";
  });
}
