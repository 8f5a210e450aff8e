// Keyboard shortcuts for people who work the queue all day. None fires while typing in a field
// or with a modifier held, so they never take a letter from a form or a browser shortcut.
//   /        the search: the queue's filter search on the queue, else the top bar's student search
//   j, k     the next and the previous row of the queue
//   o, Enter open the chosen row: in the side panel beside the list on a wide screen (the list
//            keeps its place), else its page
//   O        open the chosen row's whole page
//   Escape   close the side panel
//   ?        the list of keys (the dialog #keys-help, drawn by the layout in the person's language)
(function () {
  "use strict";

  function typing(el) {
    if (!el || el === document.body) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll('tr[data-testid="registration-row"]'));
  }

  function current() {
    return document.querySelector('tr[data-testid="registration-row"].kbd-current');
  }

  function choose(row) {
    var was = current();
    if (was) {
      was.classList.remove("kbd-current");
      was.removeAttribute("aria-current");
    }
    row.classList.add("kbd-current");
    row.setAttribute("aria-current", "true");
    row.scrollIntoView({ block: "nearest" });
    var link = row.querySelector('[data-testid="registration-link"]');
    if (link) link.focus({ preventScroll: true });
  }

  function move(by) {
    var list = rows();
    if (list.length === 0) return false;
    var i = list.indexOf(current());
    if (i < 0) {
      i = by > 0 ? 0 : list.length - 1;
    } else {
      i = Math.min(list.length - 1, Math.max(0, i + by));
    }
    choose(list[i]);
    return true;
  }

  // The side panel is used when it is there and the screen is wide enough for it beside the list.
  function panel() {
    var p = document.getElementById("queue-panel");
    if (!p || !window.htmx || !window.matchMedia("(min-width: 1100px)").matches) return null;
    return p;
  }

  function closePanel() {
    var p = document.getElementById("queue-panel");
    if (!p || !p.closest(".with-panel")) return false;
    p.closest(".with-panel").classList.remove("with-panel");
    p.replaceChildren();
    p.removeAttribute("data-id");
    var row = current();
    var link = row && row.querySelector('[data-testid="registration-link"]');
    if (link) link.focus({ preventScroll: true });
    return true;
  }

  function open(page) {
    var row = current();
    var link = row && row.querySelector('[data-testid="registration-link"]');
    if (!link) return false;
    var p = page ? null : panel();
    if (!p) {
      link.click();
      return true;
    }
    p.parentNode.classList.add("with-panel");
    p.setAttribute("data-id", row.getAttribute("data-id"));
    window.htmx.ajax("GET", link.getAttribute("href"), { target: "#queue-panel", swap: "innerHTML" });
    return true;
  }

  function focusSearch() {
    var box = document.getElementById("q") || document.getElementById("student-search");
    if (!box) return false;
    box.focus();
    if (box.select) box.select();
    // The "/" that moved the focus must not be typed into the box: its keypress is dropped.
    swallowSlash = true;
    return true;
  }

  function toggleHelp() {
    var d = document.getElementById("keys-help");
    if (!d || typeof d.showModal !== "function") return false;
    if (d.open) {
      d.close();
    } else {
      d.showModal();
    }
    return true;
  }

  var swallowSlash = false;
  document.addEventListener("keypress", function (evt) {
    if (swallowSlash && evt.key === "/") evt.preventDefault();
    swallowSlash = false;
  }, true);
  document.addEventListener("keyup", function () { swallowSlash = false; }, true);

  document.addEventListener("click", function (evt) {
    if (evt.target && evt.target.closest && evt.target.closest("[data-panel-close]")) {
      closePanel();
      return;
    }
    if (evt.target && evt.target.closest && evt.target.closest("[data-keys-close]")) {
      var d = document.getElementById("keys-help");
      if (d && d.open) d.close();
    }
  });

  document.addEventListener("keydown", function (evt) {
    if (evt.defaultPrevented || evt.ctrlKey || evt.metaKey || evt.altKey || evt.isComposing) return;
    var help = document.getElementById("keys-help");
    if (help && help.open && evt.key !== "?") return; // the dialog keeps its own keys (Escape closes it)
    if (typing(evt.target)) return;
    var done = false;
    switch (evt.key) {
      case "/":
        done = focusSearch();
        break;
      case "j":
        done = move(1);
        break;
      case "k":
        done = move(-1);
        break;
      case "o":
        done = open(false);
        break;
      case "O":
        done = open(true);
        break;
      case "Escape":
        done = closePanel();
        break;
      case "Enter":
        // On the chosen row's own link (where j/k put the focus) Enter opens the row as o does;
        // on any other link the browser follows it itself.
        if (evt.target && evt.target.tagName === "A") {
          var row = current();
          if (!row || evt.target !== row.querySelector('[data-testid="registration-link"]')) return;
        }
        if (evt.target && evt.target.tagName === "BUTTON") return;
        done = open(false);
        break;
      case "?":
        done = toggleHelp();
        break;
    }
    if (done) evt.preventDefault();
  });
})();
