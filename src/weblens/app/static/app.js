// weblens chat page: wiring. Model text is rendered as sanitised markdown (render.js); everything
// else from the server is set with textContent. Keyboard: Enter sends, Shift+Enter is a new line,
// Esc stops an answer, "/" searches chats, Alt+N starts a new chat, F2/Delete on a chat rename/delete it.
import { api } from "./api.js";
import { Chat } from "./chat.js";
import { citationCard, el } from "./render.js";
import { Sidebar } from "./sessions.js";
import { ToolPanel } from "./tools.js";

const $ = (id) => document.getElementById(id);

const DISMISSED = "weblens.banner.dismissed";

/** Show `parts` in the banner with a button that dismisses it; a dismissed banner with a `key`
 * stays dismissed in this browser, so the same advice does not come back on each load. */
function showBanner(parts, key = "") {
  const banner = $("banner");
  if (key && localStorage.getItem(DISMISSED) === key) {
    banner.hidden = true;
    return;
  }
  const close = el("button", "dismiss icon", "✕");
  close.type = "button";
  close.setAttribute("aria-label", "Dismiss this message");
  close.addEventListener("click", () => {
    banner.hidden = true;
    if (key) localStorage.setItem(DISMISSED, key);
    if ($("input").disabled) $("toggle-tools").focus();
    else $("input").focus();
  });
  const body = el("div", "banner-body");
  body.append(...parts);
  banner.replaceChildren(body, close);
  banner.hidden = false;
}

function setTitle(title) {
  $("title").textContent = title || "weblens";
  document.title = title ? `${title} — weblens` : "weblens chat";
}

function narrow() {
  return window.matchMedia("(max-width: 760px)").matches;
}

function drawer(open) {
  document.body.classList.toggle("drawer-open", open);
  $("scrim").hidden = !open;
  $("open-sidebar").setAttribute("aria-expanded", String(open));
  if (open) $("session-search").focus();
}

const sidebar = new Sidebar({
  list: $("sessions"),
  empty: $("no-sessions"),
  search: $("session-search"),
  toast: $("toast"),
  onOpen: (id) => openSession(id),
  onDeleted: () => newChat(),
});

const chat = new Chat({
  container: $("messages"),
  scroller: $("scroller"),
  citationCard: $("cite-card"),
  onSession: (session) => {
    history.replaceState(null, "", `#session=${session.session_id}`);
    setTitle(session.title);
    sidebar.add({ id: session.session_id, title: session.title });
  },
  onAnswered: () => sidebar.load().catch(() => {}),
  onBusy: (busy, canStop) => {
    $("send").hidden = busy;
    $("stop").hidden = !busy;
    $("stop").disabled = !canStop;
  },
});

const tools = new ToolPanel({
  panel: $("tool-panel"),
  toggle: $("toggle-tools"),
  form: $("tool-form"),
  select: $("tool-name"),
  fields: $("tool-fields"),
  result: $("tool-result"),
});

citationCard($("cite-card"));

async function openSession(id) {
  if (narrow()) drawer(false);
  let session;
  try {
    session = await api("GET", `/api/sessions/${encodeURIComponent(id)}`);
  } catch (error) {
    showBanner([el("span", null, error.message)]);
    return newChat();
  }
  history.replaceState(null, "", `#session=${session.id}`);
  setTitle(session.title);
  sidebar.setActive(session.id);
  chat.show(session);
}

function newChat() {
  chat.clear();
  history.replaceState(null, "", location.pathname);
  setTitle("");
  sidebar.setActive(null);
  if (narrow()) drawer(false);
  $("input").focus();
}

/** The banner without a model: one line, and how to connect one folded (open on a wide screen). */
function connectHelp(status) {
  const box = el("div", "connect");
  box.append(el("strong", null, "No model is connected, so chat is off."));
  const how = el("details", "connect-how");
  how.open = !narrow();
  how.append(el("summary", null, "How to connect a model"));
  how.append(el("p", null, "Set these (environment, .env, or [llm] in weblens.toml) and restart weblens serve:"));
  const list = el("ul");
  for (const recipe of status.connect || []) {
    const item = el("li");
    item.append(el("span", "recipe-name", `${recipe.name}: `), el("code", null, recipe.settings));
    list.append(item);
  }
  how.append(list);
  box.append(how);
  return box;
}

/** What an empty conversation says: who answers and how, or what works without a model. */
function emptyState(status) {
  if (status.chat) {
    const how = status.tools.length
      ? `searching and reading the web with ${status.tools.join(", ")}, and cites its sources as [1], [2]…`
      : "from what it knows: no web tools are available";
    return [
      el("h2", null, "Ask anything"),
      el("p", null, `${status.model} answers, ${how}`),
      el("p", "muted", "Enter sends, Shift+Enter starts a new line, Esc stops an answer."),
    ];
  }
  return [
    el("h2", null, "Chat is off until a model is connected"),
    el("p", null, "The Tools panel works now: run a search, fetch a page or get the weather, and see exactly what a model would read."),
    el("p", "muted", "weblens serve prints the settings that connect a model when it starts."),
  ];
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("input");
  const message = input.value.trim();
  if (!message || chat.busy) return;
  input.value = "";
  chat.send(message);
});
$("input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
});
$("stop").addEventListener("click", () => chat.stop());
$("new-chat").addEventListener("click", newChat);
$("open-sidebar").addEventListener("click", () => drawer(true));
$("close-sidebar").addEventListener("click", () => drawer(false));
$("scrim").addEventListener("click", () => drawer(false));
document.addEventListener("keydown", (event) => {
  const typing = event.target instanceof HTMLElement && event.target.closest("input, textarea, select");
  if (event.key === "Escape") {
    if (chat.busy) chat.stop();
    if (document.body.classList.contains("drawer-open")) drawer(false);
  } else if (event.key === "/" && !typing) {
    event.preventDefault();
    if (narrow()) drawer(true);
    $("session-search").focus();
  } else if (event.altKey && event.key.toLowerCase() === "n") {
    event.preventDefault();
    newChat();
  }
});

(async () => {
  try {
    const status = await api("GET", "/api/status");
    $("empty").replaceChildren(...emptyState(status));
    if (status.model) {
      $("model-name").textContent = status.model;
      $("model-name").hidden = false;
    }
    if (!status.chat) {
      showBanner([connectHelp(status)], "no-model");
      $("input").placeholder = "No model connected, so chat is off — the Tools panel works without one.";
      $("input").disabled = true;
      $("send").disabled = true;
    } else {
      $("tools-line").textContent = status.tools.length ? `tools: ${status.tools.join(", ")}` : "no web tools available";
    }
    await tools.load();
    if (!status.chat) tools.open(true, false);
    await sidebar.load();
  } catch (error) {
    showBanner([el("span", null, error.message)]);
  }
  const match = /session=([0-9a-f]+)/.exec(location.hash);
  if (match) await openSession(match[1]);
})();
