// The terminal takes the keys as soon as textual.js has made it, without a click on the page first.
// (A file of its own: the page's Content-Security-Policy runs no inline script.) However long the
// terminal takes to appear (a loaded machine, a slow font), it is focused when it does.
(function () {
  "use strict";
  function focusTerminal() {
    const input = document.querySelector("#terminal textarea");
    if (input) {
      input.focus();
    }
    return Boolean(input);
  }
  if (!focusTerminal()) {
    const watcher = new MutationObserver(function () {
      if (focusTerminal()) {
        watcher.disconnect();
      }
    });
    watcher.observe(document, { childList: true, subtree: true });
  }
})();
