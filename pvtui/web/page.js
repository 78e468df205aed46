// The terminal takes the keys as soon as textual.js has made it, without a click on the page first.
// (A file of its own: the page's Content-Security-Policy runs no inline script.)
(function () {
  "use strict";
  const GIVE_UP_MS = 15000;
  const started = Date.now();
  function focusTerminal() {
    const input = document.querySelector("#terminal textarea");
    if (input) {
      input.focus();
    } else if (Date.now() - started < GIVE_UP_MS) {
      setTimeout(focusTerminal, 50);
    }
  }
  focusTerminal();  // from the start: the page's load waits for its font, and keys may come before
})();
