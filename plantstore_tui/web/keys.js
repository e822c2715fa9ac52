// The page takes keys as a terminal does: its terminal has them as the tab opens, with no
// click, and again when the tab comes back or the session starts; nothing typed while the page
// and its app start is lost. Served inline, first in textual-serve's page (serving.py): its
// textual.js makes the terminal and its connection once the page has loaded, and sends each key
// through that connection at once, which drops it while the connection opens.
(() => {
  const Native = window.WebSocket;
  // What was typed before the connection was open, in order: sent first, once, when it opens
  // (the app then holds keys until its form takes them: ui/app.py, `take_key_first`).
  const held = [];
  // The tab's connection to its app, once textual.js has opened it.
  let session = null;

  const terminal = () => document.querySelector("textarea.xterm-helper-textarea");
  const ended = () => session !== null && session.readyState > Native.OPEN;
  const takeKeys = () => {
    if (!ended()) {
      terminal()?.focus();
    }
  };

  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      session = this;
      this.addEventListener("open", () => {
        for (const message of held.splice(0)) {
          Native.prototype.send.call(this, message);
        }
        takeKeys();
      });
      // textual-serve's "Session ended" shows once this has run: its Restart takes the keys,
      // so Enter starts a new session and nothing is typed into the ended one.
      this.addEventListener("close", () => {
        setTimeout(() => document.querySelector(".closed-dialog button")?.focus());
      });
    }

    send(data) {
      if (this.readyState === Native.CONNECTING) {
        held.push(data);
      } else {
        super.send(data);
      }
    }
  };

  // A key that reaches the page but not its terminal (the terminal not made yet, or not
  // focused yet): a key of a record goes where the terminal would have sent it, and the
  // terminal takes the keys after it; any other key is refused, saying so.
  const modifiers = new Set(["Shift", "Control", "Alt", "AltGraph", "Meta", "CapsLock"]);
  window.addEventListener(
    "keydown",
    (event) => {
      document.getElementById("plantstore-refused")?.remove();
      if (ended() || event.target === terminal() || modifiers.has(event.key)) {
        return;
      }
      event.preventDefault();
      const text = asTyped(event);
      if (text === undefined) {
        refuse(event.key);
      } else if (session === null) {
        held.push(JSON.stringify(["stdin", text]));
      } else {
        session.send(JSON.stringify(["stdin", text]));
      }
      takeKeys();
    },
    true,
  );

  // What the terminal sends for a key of a record; undefined for any other key.
  const asTyped = (event) => {
    if (event.ctrlKey || event.altKey || event.metaKey) {
      return undefined;
    }
    if (event.key.length === 1) {
      return event.key;
    }
    return event.shiftKey ? undefined : { Enter: "\r", Tab: "\t", Backspace: "\x7f" }[event.key];
  };

  const refuse = (key) => {
    const note = document.createElement("div");
    note.id = "plantstore-refused";
    note.setAttribute("role", "alert");
    note.style.cssText =
      "position:fixed;top:0;left:0;right:0;z-index:100;padding:8px 16px;" +
      "background:#7a2e0e;color:#fff;font:16px monospace";
    note.textContent = `${key} was not taken: the page was not ready for it. Press it again.`;
    document.documentElement.append(note);
  };

  // After every handler of the page's load: textual.js makes the terminal in its own.
  window.addEventListener("load", () => setTimeout(takeKeys));
  window.addEventListener("focus", takeKeys);
})();
