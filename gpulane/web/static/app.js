// Search as you type for the GPU boxes. The pages work without this script: the server
// resolves loose names ("7900xtx", "4090") when the form is sent.
(function () {
  "use strict";

  function setup(input, list) {
    var timer = null, active = -1, items = [];

    function close() { list.hidden = true; list.textContent = ""; active = -1; items = []; }

    function choose(name) { input.value = name; close(); input.focus(); }

    function show(found) {
      list.textContent = "";
      items = found;
      active = -1;
      found.forEach(function (gpu, i) {
        var li = document.createElement("li");
        li.setAttribute("role", "option");
        li.dataset.name = gpu.name;
        li.textContent = gpu.name;  // text, never HTML
        li.addEventListener("mousedown", function (ev) { ev.preventDefault(); choose(gpu.name); });
        list.appendChild(li);
      });
      list.hidden = found.length === 0;
    }

    function mark() {
      Array.prototype.forEach.call(list.children, function (li, i) {
        li.setAttribute("aria-selected", i === active ? "true" : "false");
      });
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      var q = input.value.trim();
      if (!q) { close(); return; }
      timer = setTimeout(function () {
        fetch("/api/gpus?q=" + encodeURIComponent(q.slice(0, 200)))
          .then(function (r) { return r.ok ? r.json() : []; })
          .then(function (found) { if (input.value.trim() === q) { show(found); } })
          .catch(function () { close(); });
      }, 120);
    });
    input.addEventListener("keydown", function (ev) {
      if (list.hidden || !items.length) { return; }
      if (ev.key === "ArrowDown") { active = (active + 1) % items.length; mark(); ev.preventDefault(); }
      else if (ev.key === "ArrowUp") { active = (active - 1 + items.length) % items.length; mark(); ev.preventDefault(); }
      else if (ev.key === "Enter" && active >= 0) { choose(items[active].name); ev.preventDefault(); }
      else if (ev.key === "Escape") { close(); }
    });
    input.addEventListener("blur", function () { setTimeout(close, 150); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    // Only on the server: a static site has no /api to ask.
    if (location.protocol === "file:") { return; }
    var gpu = document.getElementById("gpu");
    if (gpu) { setup(gpu, document.getElementById("gpu-suggestions")); }
    document.querySelectorAll("input[data-suggest]").forEach(function (input) {
      setup(input, input.parentNode.querySelector(".suggestions"));
    });
  });
})();
