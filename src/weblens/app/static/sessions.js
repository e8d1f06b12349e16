// The chat list: newest first, searchable, renamed in place, deleted with a moment to undo.
import { api, sendWhileLeaving } from "./api.js";
import { el } from "./render.js";

const UNDO_MS = 6000;
const SEARCH_DELAY_MS = 200;

export class Sidebar {
  constructor({ list, empty, search, toast, onOpen, onDeleted }) {
    this.list = list;
    this.empty = empty;
    this.search = search;
    this.toast = toast;
    this.onOpen = onOpen;
    this.onDeleted = onDeleted;
    this.activeId = null;
    this.pending = new Map(); // session id -> timer of a delete that can still be undone
    let timer = null;
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.load(), SEARCH_DELAY_MS);
    });
    // a delete still waiting for its undo time happens anyway when the page goes away
    window.addEventListener("pagehide", () => {
      for (const id of this.pending.keys()) sendWhileLeaving("DELETE", `/api/sessions/${encodeURIComponent(id)}`);
    });
  }

  async load() {
    const query = this.search.value.trim();
    const data = await api("GET", `/api/sessions${query ? `?q=${encodeURIComponent(query)}` : ""}`);
    // a reload (after each answer) must not take the keyboard's place in the list away: the same button keeps focus
    const focused = this.list.contains(document.activeElement) ? document.activeElement : null;
    const focusedId = focused?.closest("li")?.dataset.id;
    this.list.replaceChildren(...data.sessions.filter((s) => !this.pending.has(s.id)).map((s) => this.item(s)));
    if (focusedId && focused.tagName === "BUTTON") {
      const again = this.list.querySelector(`[data-id="${CSS.escape(focusedId)}"] .${focused.classList[0]}`);
      again?.focus();
    }
    this.empty.hidden = this.list.children.length > 0;
    this.empty.textContent = query ? "No chat matches." : "No chats yet.";
    this.setActive(this.activeId);
  }

  /** A session that has just been created appears at the top at once. */
  add({ id, title }) {
    if (!this.list.querySelector(`[data-id="${CSS.escape(id)}"]`)) {
      this.list.prepend(this.item({ id, title }));
      this.empty.hidden = true;
    }
    this.setActive(id);
  }

  setActive(id) {
    this.activeId = id;
    for (const item of this.list.children) {
      const active = item.dataset.id === id;
      item.classList.toggle("active", active);
      const open = item.querySelector(".open");
      if (active) open.setAttribute("aria-current", "page");
      else open.removeAttribute("aria-current");
    }
  }

  item(session) {
    const item = el("li");
    item.dataset.id = session.id;
    const open = el("button", "open");
    open.type = "button";
    const name = el("span", "name", session.title || "New chat");
    open.append(name);
    open.title = session.title || "";
    const rename = el("button", "rename", "✎");
    rename.type = "button";
    rename.setAttribute("aria-label", `Rename “${session.title || "New chat"}”`);
    const remove = el("button", "delete", "✕");
    remove.type = "button";
    remove.setAttribute("aria-label", `Delete “${session.title || "New chat"}”`);
    item.append(open, rename, remove);
    open.addEventListener("click", () => this.onOpen(session.id));
    open.addEventListener("dblclick", () => this.rename(item, session));
    open.addEventListener("keydown", (event) => {
      if (event.key === "F2") this.rename(item, session);
      if (event.key === "Delete") this.remove(item, session);
    });
    rename.addEventListener("click", () => this.rename(item, session));
    remove.addEventListener("click", () => this.remove(item, session));
    return item;
  }

  rename(item, session) {
    const open = item.querySelector(".open");
    const field = el("input", "rename-field");
    field.value = session.title || "";
    field.setAttribute("aria-label", "New title (Enter saves, Escape cancels)");
    item.replaceChild(field, open);
    field.focus();
    field.select();
    let settled = false;
    const finish = async (save) => {
      if (settled) return;
      settled = true;
      const title = field.value.trim();
      if (save && title && title !== session.title) {
        try {
          const renamed = await api("PATCH", `/api/sessions/${encodeURIComponent(session.id)}`, { title });
          session.title = renamed.title;
          open.querySelector(".name").textContent = renamed.title;
          open.title = renamed.title;
          if (session.id === this.activeId) document.getElementById("title").textContent = renamed.title;
        } catch (error) {
          this.say(error.message);
        }
      }
      item.replaceChild(open, field);
      open.focus();
    };
    field.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { event.preventDefault(); finish(true); }
      if (event.key === "Escape") { event.preventDefault(); finish(false); }
    });
    field.addEventListener("blur", () => finish(true));
  }

  remove(item, session) {
    const next = item.nextElementSibling || item.previousElementSibling;
    item.hidden = true;
    const timer = setTimeout(async () => {
      this.pending.delete(session.id);
      item.remove();
      try {
        await api("DELETE", `/api/sessions/${encodeURIComponent(session.id)}`);
      } catch (error) {
        if (error.status !== 404) this.say(error.message);
      }
    }, UNDO_MS);
    this.pending.set(session.id, timer);
    if (session.id === this.activeId) this.onDeleted(session.id);
    (next?.querySelector(".open") || this.search).focus();
    const undo = el("button", "undo", "Undo");
    undo.type = "button";
    undo.addEventListener("click", () => {
      clearTimeout(timer);
      this.pending.delete(session.id);
      item.hidden = false;
      this.toast.hidden = true;
      item.querySelector(".open").focus();
    });
    this.say(`Deleted “${session.title || "New chat"}”.`, undo);
  }

  say(message, action) {
    this.toast.replaceChildren(el("span", null, message));
    if (action) this.toast.append(action);
    this.toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { this.toast.hidden = true; }, UNDO_MS);
  }
}
