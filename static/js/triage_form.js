// The screening form: the positive class is a category of the chosen dimension, so only that
// dimension's categories can be chosen (the others' are disabled and hidden); a choice left in
// another dimension moves to the chosen one's first category. The server checks it as well.
function follow(dimension, positive) {
  let keep = null;
  for (const group of positive.querySelectorAll("optgroup[data-dimension]")) {
    const mine = group.dataset.dimension === dimension.value;
    group.disabled = !mine;
    group.hidden = !mine;
    if (mine) keep = group;
  }
  const chosen = positive.selectedOptions[0];
  if (keep && (!chosen || chosen.parentElement !== keep)) {
    const first = keep.querySelector("option");
    if (first) positive.value = first.value;
  }
}

const form = document.querySelector("[data-testid=triage-form]");
const dimension = form && form.querySelector("select[name=dimension]");
const positive = form && form.querySelector("select[name=positive]");
if (dimension && positive) {
  follow(dimension, positive);
  dimension.addEventListener("change", () => follow(dimension, positive));
}
