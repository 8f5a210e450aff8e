// regdesk's small behaviours. No inline script anywhere: the Content-Security-Policy forbids it,
// so everything htmx cannot do declaratively lives here.
(function () {
  "use strict";

  // Polling regions (data-poll) stop asking while the tab is hidden, and catch up at once when it
  // is shown again, so an idle tab never loads the database.
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (document.hidden && elt && elt.hasAttribute("data-poll")) {
      evt.preventDefault();
    }
  });
  document.addEventListener("visibilitychange", function () {
    if (document.hidden || !window.htmx) return;
    document.querySelectorAll("[data-poll]").forEach(function (elt) {
      window.htmx.trigger(elt, "refresh");
    });
  });

  // A filter form submits itself when a select changes, so it needs no button with JavaScript.
  document.addEventListener("change", function (evt) {
    var t = evt.target;
    if (!t || !t.form || !t.form.hasAttribute("data-autosubmit")) return;
    if (t.tagName === "SELECT" || t.type === "checkbox") {
      t.form.requestSubmit();
    }
  });

  // "Copy as message" buttons copy the text of the element they name (data-copy-target). The text
  // is on the page anyway, so without JavaScript a person selects and copies it; the buttons stay
  // hidden until this script can make them work.
  function revealCopyButtons(root) {
    root.querySelectorAll("[data-copy-target][hidden]").forEach(function (b) {
      b.hidden = false;
    });
  }
  revealCopyButtons(document);
  document.addEventListener("htmx:load", function (evt) {
    if (evt.detail && evt.detail.elt && evt.detail.elt.querySelectorAll) revealCopyButtons(evt.detail.elt);
  });

  function copied(button, how, message) {
    button.dataset.copied = how;
    var status = button.parentNode && button.parentNode.querySelector("[role=status]");
    if (status) status.textContent = message;
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target && evt.target.closest && evt.target.closest("[data-copy-target]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy-target"));
    if (!source) return;
    var text = source.value !== undefined ? source.value : source.textContent;
    function selectIt() {
      // No clipboard access (an insecure origin, a refused permission): select the text so the
      // person copies it with Ctrl+C.
      if (source.select) {
        source.focus();
        source.select();
      }
      var ok = false;
      try {
        ok = document.execCommand("copy");
      } catch (e) {
        ok = false;
      }
      if (ok) {
        copied(button, "selected", "Copied");
      } else {
        copied(button, "selected", "Selected: press Ctrl+C (⌘C) to copy");
      }
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () {
        copied(button, "clipboard", "Copied");
      }, selectIt);
    } else {
      selectIt();
    }
  });

  // The student search's dropdown: Down moves from the box into the results and between them,
  // Up back, Escape closes it and returns to the box.
  function searchParts(elt) {
    var form = elt && elt.closest && elt.closest("[data-testid=search-form]");
    if (!form) return null;
    return {
      input: form.querySelector("input[type=search]"),
      results: form.querySelector("[data-testid=search-results]"),
    };
  }
  document.addEventListener("keydown", function (evt) {
    var parts = searchParts(evt.target);
    if (!parts || !parts.results) return;
    var links = Array.prototype.slice.call(parts.results.querySelectorAll("a"));
    var i = links.indexOf(evt.target);
    if (evt.key === "ArrowDown" && links.length) {
      evt.preventDefault();
      links[Math.min(i + 1, links.length - 1)].focus();
    } else if (evt.key === "ArrowUp" && i >= 0) {
      evt.preventDefault();
      if (i === 0) parts.input.focus();
      else links[i - 1].focus();
    } else if (evt.key === "Escape") {
      parts.results.classList.remove("open");
      parts.results.replaceChildren();
      parts.input.focus();
    }
  });

  // A click elsewhere closes the dropdown; typing again reopens it.
  document.addEventListener("click", function (evt) {
    var open = document.querySelector("[data-testid=search-results].open");
    if (open && !(evt.target.closest && evt.target.closest("[data-testid=search-form]"))) {
      open.classList.remove("open");
    }
  });
})();
