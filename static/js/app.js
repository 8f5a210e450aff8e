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
  // A response whose target has left the page (the person followed a link while a list was still
  // filtering or refreshing) is dropped: its out-of-band parts would find nowhere to go. htmx
  // fires beforeSwap on the target, which a detached target no longer passes to the document, so
  // the check is bound to the target itself when the request starts.
  function dropIfGone(evt) {
    if (!document.body.contains(evt.currentTarget)) evt.detail.shouldSwap = false;
  }
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var target = evt.detail && evt.detail.target;
    if (target && target !== document.body && target.addEventListener) {
      target.removeEventListener("htmx:beforeSwap", dropIfGone);
      target.addEventListener("htmx:beforeSwap", dropIfGone);
    }
  });
  // A list that refreshes itself (data-keep-ticks: the queue's) keeps what the person chose in it:
  // the ticked rows, the row chosen with j/k (and its focus) and the bulk action picked. A refresh
  // waits while the person is in one of its fields, so it never takes a select from under them.
  var kept = null;
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (!elt || !elt.hasAttribute || !elt.hasAttribute("data-keep-ticks")) return;
    var a = document.activeElement;
    if (a && elt.contains(a) && /^(SELECT|INPUT|TEXTAREA|BUTTON)$/.test(a.tagName)) evt.preventDefault();
  });
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var t = evt.detail && evt.detail.target;
    if (!t || !t.hasAttribute || !t.hasAttribute("data-keep-ticks")) return;
    var ticked = [];
    t.querySelectorAll('input[data-testid="select-row"]:checked').forEach(function (box) { ticked.push(box.value); });
    var cur = t.querySelector("tr.kbd-current");
    var action = t.querySelector('[data-testid="bulk-action"]');
    kept = { id: t.id, ticked: ticked, current: cur && cur.getAttribute("data-id"),
      focus: !!(cur && cur.contains(document.activeElement)), action: action && action.value };
  });
  document.addEventListener("htmx:afterSwap", function () {
    if (!kept) return;
    var k = kept;
    kept = null;
    var root = document.getElementById(k.id);
    if (!root) return;
    k.ticked.forEach(function (id) {
      var box = root.querySelector('input[data-testid="select-row"][value="' + id + '"]');
      if (box) box.checked = true;
    });
    var sel = root.querySelector('[data-testid="bulk-action"]');
    if (sel && k.action) sel.value = k.action;
    var row = k.current && root.querySelector('tr[data-id="' + k.current + '"]');
    if (row) {
      row.classList.add("kbd-current");
      row.setAttribute("aria-current", "true");
      var link = row.querySelector('[data-testid="registration-link"]');
      if (k.focus && link) link.focus({ preventScroll: true });
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
  // i18n.Localizer.Relative, in the page's language.
  var countdownSeen = new WeakMap();
  // The page's language's words (layout's regdesk-time-words meta), English when absent.
  var timeWords = { now: "now", in: "in {s}", ago: "{s} ago", dh: "{d} d {h} h", d: "{d} d",
    hm: "{h} h {m} min", h: "{h} h", m: "{m} min", s: "{x} s" };
  (function () {
    var meta = document.querySelector('meta[name="regdesk-time-words"]');
    if (!meta) return;
    try {
      var w = JSON.parse(meta.getAttribute("content"));
      Object.keys(timeWords).forEach(function (k) { if (typeof w[k] === "string") timeWords[k] = w[k]; });
    } catch (e) { /* keep English */ }
  })();
  function fill(pattern, vals) {
    return pattern.replace(/\{([a-z])\}/g, function (_, k) { return vals[k] !== undefined ? String(vals[k]) : ""; });
  }
  function countdownSpan(ms) {
    var s = Math.round(ms / 1000);
    var v = { d: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600), m: Math.floor((s % 3600) / 60), x: s % 60 };
    if (v.d > 0 && v.h > 0) return fill(timeWords.dh, v);
    if (v.d > 0) return fill(timeWords.d, v);
    if (v.h > 0 && v.m > 0) return fill(timeWords.hm, v);
    if (v.h > 0) return fill(timeWords.h, v);
    if (v.m > 0) return fill(timeWords.m, v);
    return fill(timeWords.s, v);
  }
  function countdownWords(at, now) {
    var d = at - now;
    if (d > -30000 && d < 30000) return timeWords.now;
    return fill(d > 0 ? timeWords.in : timeWords.ago, { s: countdownSpan(Math.abs(d)) });
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

  // "Copy as message" buttons copy the text of the element they name (data-copy-target). The text
  // is on the page anyway, so without JavaScript a person selects and copies it; the buttons stay
  // hidden until this script can make them work.
  function revealCopyButtons(root) {
    root.querySelectorAll("[data-copy-target][hidden]").forEach(function (b) {
      b.hidden = false;
    });
  }
  revealCopyButtons(document);

  // The student message's language switch: with this script one message shows at a time, the
  // one the select names, and the copy button copies it. Without it all three show, and the
  // select stays hidden.
  function showMessage(select) {
    var region = select.closest("[data-testid=copy-message-region]");
    if (!region) return;
    var lang = select.value;
    region.querySelectorAll("[data-message-lang]").forEach(function (el) {
      el.hidden = el.getAttribute("data-message-lang") !== lang;
    });
    var opt = select.options[select.selectedIndex];
    var button = region.querySelector("[data-copy-target]");
    if (button && opt) {
      button.setAttribute("data-copy-target", opt.getAttribute("data-target"));
      delete button.dataset.copied;
      var status = button.parentNode.querySelector("[role=status]");
      if (status) status.textContent = "";
    }
  }
  function setUpMessageSwitches(root) {
    root.querySelectorAll("select[data-message-switch]").forEach(function (sel) {
      sel.hidden = false;
      showMessage(sel);
    });
  }
  setUpMessageSwitches(document);
  document.addEventListener("htmx:load", function (evt) {
    if (evt.detail && evt.detail.elt && evt.detail.elt.querySelectorAll) setUpMessageSwitches(evt.detail.elt);
  });
  document.addEventListener("change", function (evt) {
    var t = evt.target;
    if (t && t.matches && t.matches("select[data-message-switch]")) showMessage(t);
  });
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
        copied(button, "selected", button.dataset.copiedText || "Copied");
      } else {
        copied(button, "selected", button.dataset.selectedText || "Selected: press Ctrl+C (⌘C) to copy");
      }
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () {
        copied(button, "clipboard", button.dataset.copiedText || "Copied");
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
  // An export streams every matching row as the database reads it; a large one takes a while to
  // arrive. Following its link says so beside it, since the page itself does not change.
  document.addEventListener("click", function (evt) {
    var link = evt.target.closest && evt.target.closest(".export-links a");
    if (!link) return;
    var status = link.parentElement.querySelector("[data-testid=export-status]");
    if (status) status.hidden = false;
  });
})();
