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

  // Countdowns (<time datetime data-countdown="server now when drawn">) keep counting while the
  // page is open: every 30 s their relative part is redrawn from the server's clock at drawing time
  // plus the time since, so a wrong clock on this computer does not skew them. The words match
  // views.Relative.
  var countdownSeen = new WeakMap();
  function countdownSpan(ms) {
    var s = Math.round(ms / 1000);
    var days = Math.floor(s / 86400), hours = Math.floor((s % 86400) / 3600);
    var mins = Math.floor((s % 3600) / 60), secs = s % 60;
    if (days > 0 && hours > 0) return days + " d " + hours + " h";
    if (days > 0) return days + " d";
    if (hours > 0 && mins > 0) return hours + " h " + mins + " min";
    if (hours > 0) return hours + " h";
    if (mins > 0) return mins + " min";
    return secs + " s";
  }
  function countdownWords(at, now) {
    var d = at - now;
    if (d > -30000 && d < 30000) return "now";
    return d > 0 ? "in " + countdownSpan(d) : countdownSpan(-d) + " ago";
  }
  function countdownTick() {
    var nowClient = Date.now();
    document.querySelectorAll("time[data-countdown]").forEach(function (el) {
      var first = countdownSeen.get(el);
      if (first === undefined) {
        countdownSeen.set(el, nowClient);
        return;
      }
      var drawn = Date.parse(el.getAttribute("data-countdown"));
      var at = Date.parse(el.getAttribute("datetime"));
      if (isNaN(drawn) || isNaN(at)) return;
      var now = drawn + (nowClient - first);
      var rel = el.querySelector(".rel") || el;
      rel.textContent = countdownWords(at, now);
      el.classList.toggle("past", at <= now);
    });
  }
  // Remember when each countdown was first seen: on load, and whenever htmx swaps one in.
  function countdownMark() {
    var nowClient = Date.now();
    document.querySelectorAll("time[data-countdown]").forEach(function (el) {
      if (!countdownSeen.has(el)) countdownSeen.set(el, nowClient);
    });
  }
  document.addEventListener("DOMContentLoaded", countdownMark);
  document.addEventListener("htmx:load", countdownMark);
  window.setInterval(countdownTick, 30000);
  // Tests (and the curious) can redraw at once instead of waiting for the next tick.
  window.regdeskCountdownTick = countdownTick;
})();
