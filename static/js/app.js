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
})();
