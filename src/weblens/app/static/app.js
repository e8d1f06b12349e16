// weblens chat page: sessions, a streamed answer, tool activity and sources.
// Text from the server is only ever set with textContent; links only for http(s).
"use strict";

const $ = (id) => document.getElementById(id);
const state = { sessionId: null, busy: false };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function safeHref(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch (_) {
    return null;
  }
}

function showBanner(message) {
  const banner = $("banner");
  banner.textContent = message || "";
  banner.hidden = !message;
}

// On an address other machines can reach, the API wants the server's token (WEBLENS_MCP_TOKEN).
function authHeaders() {
  const token = sessionStorage.getItem("weblens-token");
  return token ? { Authorization: `Bearer ${token}` } : {};
}

function askForToken(response) {
  if (response.status !== 401) return false;
  const token = window.prompt("This weblens server needs its token (WEBLENS_MCP_TOKEN):");
  if (!token) return false;
  sessionStorage.setItem("weblens-token", token);
  return true;
}

async function api(method, path, body) {
  const response = await apiOnce(method, path, body);
  if (askForToken(response)) return api(method, path, body);
  if (!response.ok) throw await errorOf(response);
  return response.status === 204 ? null : response.json();
}

async function apiOnce(method, path, body) {
  const init = { method, headers: authHeaders() };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch(path, init);
}

async function errorOf(response) {
  try {
    const data = await response.json();
    if (data && data.error) return new Error(data.error.message || data.error.code);
  } catch (_) { /* not JSON */ }
  return new Error(`HTTP ${response.status}`);
}

// -- sessions -----------------------------------------------------------------

async function loadSessions() {
  const data = await api("GET", "/api/sessions");
  const list = $("sessions");
  list.replaceChildren();
  for (const session of data.sessions) {
    const item = el("li");
    item.dataset.id = session.id;
    if (session.id === state.sessionId) item.classList.add("active");
    const name = el("span", "name", session.title || "New chat");
    name.title = session.title || "";
    const rename = el("button", "rename", "✎");
    rename.title = "Rename";
    const remove = el("button", "delete", "✕");
    remove.title = "Delete";
    item.append(name, rename, remove);
    item.addEventListener("click", () => openSession(session.id));
    rename.addEventListener("click", async (event) => {
      event.stopPropagation();
      const title = prompt("New title", session.title);
      if (title && title.trim()) {
        await api("PATCH", `/api/sessions/${encodeURIComponent(session.id)}`, { title });
        await loadSessions();
      }
    });
    remove.addEventListener("click", async (event) => {
      event.stopPropagation();
      await api("DELETE", `/api/sessions/${encodeURIComponent(session.id)}`);
      if (session.id === state.sessionId) newChat();
      await loadSessions();
    });
    list.append(item);
  }
}

async function openSession(id) {
  let data;
  try {
    data = await api("GET", `/api/sessions/${encodeURIComponent(id)}`);
  } catch (error) {
    showBanner(error.message);
    return newChat();
  }
  state.sessionId = data.id;
  location.hash = `session=${data.id}`;
  $("title").textContent = data.title || "weblens";
  const messages = $("messages");
  messages.replaceChildren();
  for (const message of data.messages) {
    const view = messageView(message.role);
    view.text.textContent = message.content;
    for (const call of message.tool_calls || []) {
      view.toolCall(call);
      view.toolResult({ id: call.id, ...(call.result || {}) });
    }
    view.sources(message.sources || []);
    if (message.status === "incomplete") view.status("Incomplete: the answer was interrupted.");
    if (message.error) view.error(message.error.message);
  }
  messages.scrollTop = messages.scrollHeight;
  for (const item of $("sessions").children) item.classList.toggle("active", item.dataset.id === state.sessionId);
}

function newChat() {
  state.sessionId = null;
  history.replaceState(null, "", location.pathname);
  $("title").textContent = "weblens";
  $("messages").replaceChildren();
  for (const item of $("sessions").children) item.classList.remove("active");
}

// -- messages -----------------------------------------------------------------

function messageView(role) {
  const box = el("div", `msg ${role}`);
  const tools = el("ul", "tools");
  const text = el("div", "text");
  box.append(tools, text);
  $("messages").append(box);
  const calls = new Map();
  return {
    box,
    text,
    toolCall(call) {
      const shown = call.key_argument ? `${call.name}: ${call.key_argument}` : call.name;
      const line = el("li", "running", `🔧 ${shown} …`);
      line.dataset.base = `🔧 ${shown}`;
      calls.set(call.id, line);
      tools.append(line);
    },
    toolResult(result) {
      const line = calls.get(result.id);
      if (!line || result.ok === undefined) return;
      line.className = result.ok ? "ok" : "failed";
      const parts = [line.dataset.base, result.ok ? "✓" : "✗"];
      if (result.brief) parts.push(result.brief);
      if (result.repeated) parts.push("(repeated call)");
      else if (result.duration_ms !== undefined) parts.push(`${Math.round(result.duration_ms)} ms`);
      line.textContent = parts.join(" ");
    },
    sources(sources) {
      if (!sources.length) return;
      const block = el("div", "sources", "Sources:");
      const list = el("ol");
      for (const source of sources) {
        const item = el("li");
        if (source.number) item.value = source.number;
        const href = safeHref(source.url);
        if (href) {
          const link = el("a", null, source.title || source.url);
          link.href = href;
          link.target = "_blank";
          link.rel = "noopener noreferrer";
          item.append(link);
        } else {
          item.textContent = source.title || source.url;
        }
        list.append(item);
      }
      block.append(list);
      box.append(block);
    },
    status(message) { box.append(el("div", "status", message)); },
    notice(message) { box.append(el("div", "notice", message)); },
    error(message) { box.append(el("div", "error", message)); },
  };
}

// Parse a text/event-stream body: calls onEvent(name, data) for each event.
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
  }
}

async function send(message) {
  state.busy = true;
  $("send").disabled = true;
  messageView("user").text.textContent = message;
  const view = messageView("assistant");
  view.box.classList.add("streaming");
  try {
    const response = await fetch("/api/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...authHeaders() },
      body: JSON.stringify({ session_id: state.sessionId, message }),
    });
    if (!response.ok) throw await errorOf(response);
    await readEvents(response, (name, data) => {
      if (name === "session") {
        state.sessionId = data.session_id;
        location.hash = `session=${data.session_id}`;
        $("title").textContent = data.title;
      } else if (name === "delta") {
        view.text.textContent += data.text;
      } else if (name === "tool_call") {
        view.toolCall(data);
      } else if (name === "tool_result") {
        view.toolResult(data);
      } else if (name === "done") {
        view.text.textContent = data.answer;
        view.sources(data.sources || []);
        if (data.notice) view.notice(data.notice);
      } else if (name === "error") {
        view.error(data.message);
      }
      const messages = $("messages");
      messages.scrollTop = messages.scrollHeight;
    });
  } catch (error) {
    view.error(error.message);
  } finally {
    view.box.classList.remove("streaming");
    view.box.classList.add("finished");
    state.busy = false;
    $("send").disabled = false;
    loadSessions().catch(() => {});
  }
}

// -- start --------------------------------------------------------------------

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("input");
  const message = input.value.trim();
  if (!message || state.busy) return;
  input.value = "";
  send(message);
});
$("input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
});
$("new-chat").addEventListener("click", newChat);

(async () => {
  try {
    const status = await api("GET", "/api/status");
    if (!status.chat) showBanner(status.reason);
    else $("tools").textContent = status.tools.length ? `tools: ${status.tools.join(", ")}` : "no web tools available";
  } catch (error) {
    showBanner(error.message);
  }
  await loadSessions();
  const match = /session=([0-9a-f]+)/.exec(location.hash);
  if (match) await openSession(match[1]);
})();
