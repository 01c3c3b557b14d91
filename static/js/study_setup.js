// Study setup and batch pages: show only the chosen codebook's dimensions and the inputs of
// the chosen sampling mode; once the draw settings change, the preview no longer holds.
(function () {
  "use strict";

  const codebook = document.getElementById("id_codebook");
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

  // Offered only with script: it fills the keyword box with the seed study's list.
  document.querySelectorAll("[data-fill-keywords]").forEach(function (button) {
    const box = document.getElementById(button.dataset.fillKeywords);
    if (!box) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      box.value = button.dataset.keywords;
      box.dispatchEvent(new Event("input", { bubbles: true }));
    });
  });

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
})();
