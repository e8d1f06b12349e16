// The conversation: messages as they stream (thinking, tool calls with their time, the answer as
// markdown), Stop, and picking an answer up again after a reload. The server keeps writing an
// answer when the page goes away; the page follows it again from its first event.
import { api, stream } from "./api.js";
import { allowedUrls, el, enhanceCode, linkCitations, renderMarkdown, safeHref, siteOf } from "./render.js";

const TICK_MS = 200;
const STATUS_TEXT = {
  stopped: "Stopped — the answer was cut short here.",
  incomplete: "Incomplete — the server stopped before the answer was finished.",
};

function seconds(ms) {
  return ms < 10000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

// One timer updates every "running for…" label on the page.
setInterval(() => {
  const now = performance.now();
  for (const node of document.querySelectorAll("[data-started]")) {
    node.textContent = `${node.dataset.label} ${seconds(now - Number(node.dataset.started))}`;
  }
}, TICK_MS);

function elapsed(label) {
  const node = el("span", "elapsed", `${label} 0.0 s`);
  node.dataset.label = label;
  node.dataset.started = String(performance.now());
  return node;
}

/** One message on the page. */
class MessageView {
  constructor(role, container, citationCard) {
    this.role = role;
    this.card = citationCard;
    this.box = el("article", `msg ${role}`);
    this.activity = el("div", "activity");
    this.tools = el("div", "tools");
    this.body = el("div", "text");
    this.footer = el("div", "footer");
    this.box.append(this.tools, this.activity, this.body, this.footer);
    container.append(this.box);
    this.calls = new Map();
    this.text = "";
    this.pending = false;
  }

  setText(text) {
    this.text = text;
    if (this.role === "user") {
      this.body.textContent = text;
      return;
    }
    if (this.pending) return;
    this.pending = true; // re-render at most once a frame while text streams in
    requestAnimationFrame(() => {
      this.pending = false;
      if (!this.finished) this.body.replaceChildren(renderMarkdown(this.text));
    });
  }

  addText(text) { this.setText(this.text + text); }

  thinking(on) {
    this.activity.replaceChildren();
    if (on) this.activity.append(el("span", "spinner"), elapsed("Thinking…"));
  }

  toolCall(call) {
    this.thinking(false);
    const item = el("details", "tool running");
    const summary = el("summary");
    const shown = call.key_argument ? `${call.name}: ${call.key_argument}` : call.name;
    summary.append(el("span", "tool-name", shown), el("span", "spinner"), elapsed("running"));
    const detail = el("pre", "tool-args");
    detail.textContent = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments || {}, null, 2);
    item.append(summary, detail);
    this.tools.append(item);
    this.calls.set(call.id, { item, summary, shown });
  }

  toolResult(result) {
    const found = this.calls.get(result.id);
    if (!found || result.ok === undefined) return;
    const { item, summary, shown } = found;
    item.className = `tool ${result.ok ? "ok" : "failed"}`;
    const outcome = result.ok ? "✓" : `✗ ${result.outcome || "failed"}`;
    const time = result.repeated ? "repeated call" : seconds(result.duration_ms || 0);
    summary.replaceChildren(
      el("span", "tool-name", shown),
      el("span", "tool-outcome", `${outcome}${result.brief ? ` ${result.brief}` : ""}`),
      el("span", "tool-time", time),
    );
  }

  sources(sources, citations) {
    linkCitations(this.body, sources, citations, this.card);
    if (!sources || !sources.length) return;
    const list = el("ol", "sources");
    list.setAttribute("aria-label", "Sources");
    for (const source of sources) {
      const item = el("li");
      if (source.number) item.value = source.number;
      const href = safeHref(source.url);
      const link = el(href ? "a" : "span", null, source.title || source.url);
      if (href) {
        link.href = href;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
      }
      item.append(link, el("span", "site", siteOf(source.url)));
      list.append(item);
    }
    this.footer.append(el("div", "sources-label", "Sources"), list);
  }

  finish({ text, sources, citations, linked, notice, status, error }) {
    this.finished = true;
    this.thinking(false);
    if (text !== undefined) this.text = text;
    const allowed = allowedUrls([...(linked || []), ...(sources || []).flatMap((s) => [s.url, s.final_url])]);
    this.body.replaceChildren(renderMarkdown(this.text, allowed));
    this.pending = false;
    this.sources(sources, citations);
    enhanceCode(this.body);
    for (const { item } of this.calls.values()) {
      if (item.classList.contains("running")) item.className = "tool unfinished";
    }
    for (const node of this.box.querySelectorAll("[data-started]")) delete node.dataset.started;
    if (notice) this.footer.append(el("div", "notice", notice));
    if (STATUS_TEXT[status]) {
      this.box.classList.add(status);
      this.footer.append(el("div", `status ${status}`, STATUS_TEXT[status]));
    }
    if (error) {
      this.box.classList.add("error");
      this.footer.append(el("div", "error", error));
    }
    this.box.classList.remove("streaming");
    this.box.classList.add("finished");
  }
}

export class Chat {
  constructor({ container, scroller, citationCard, onSession, onAnswered, onBusy }) {
    this.container = container;
    this.scroller = scroller || container;
    this.card = citationCard;
    this.onSession = onSession;
    this.onAnswered = onAnswered;
    this.onBusy = onBusy;
    this.sessionId = null;
    this.busy = false;
    this.reader = null;
  }

  clear() {
    this.reader?.abort();
    this.sessionId = null;
    this.container.replaceChildren();
  }

  view(role) {
    return new MessageView(role, this.container, this.card);
  }

  scroll() {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  /** Show a saved session; when an answer is still being written there, follow it. */
  show(session) {
    this.clear();
    this.sessionId = session.id;
    for (const message of session.messages) {
      const view = this.view(message.role);
      view.setText(message.content);
      if (message.role === "assistant") {
        for (const call of message.tool_calls || []) {
          view.toolCall(call);
          view.toolResult({ id: call.id, ...(call.result || {}) });
        }
        view.finish({
          text: message.content, sources: message.sources, citations: message.citations,
          linked: message.linked_urls, status: message.status, error: message.error?.message,
        });
      }
    }
    this.scroll();
    if (session.running) this.follow(`/api/sessions/${encodeURIComponent(session.id)}/stream?from=0`, "GET");
  }

  async send(message) {
    this.view("user").setText(message);
    await this.follow("/api/chat", "POST", { session_id: this.sessionId, message });
  }

  async stop() {
    if (!this.busy || !this.sessionId) return;
    try {
      await api("POST", `/api/sessions/${encodeURIComponent(this.sessionId)}/stop`);
    } catch (_) { /* it ended meanwhile */ }
  }

  setBusy(busy) {
    this.busy = busy;
    this.onBusy(busy, Boolean(this.sessionId));
  }

  async follow(path, method, body) {
    const view = this.view("assistant");
    view.box.classList.add("streaming");
    view.thinking(true);
    this.reader = new AbortController();
    const reader = this.reader;
    this.setBusy(true);
    let ended = false;
    try {
      await stream(method, path, body, (name, data) => {
        ended = this.handle(view, name, data) || ended;
        this.scroll();
      }, reader.signal);
      if (!ended) view.finish({ error: "The connection ended before the answer did; reload to see the rest." });
    } catch (error) {
      if (!reader.signal.aborted) view.finish({ error: error.message });
    } finally {
      if (this.reader === reader) {
        this.reader = null;
        this.setBusy(false);
      }
      this.onAnswered();
    }
  }

  /** Apply one event to the message; true when it ended the answer. */
  handle(view, name, data) {
    if (name === "session") {
      this.sessionId = data.session_id;
      this.onSession(data);
      this.setBusy(true);
    } else if (name === "delta") {
      view.thinking(false);
      view.addText(data.text);
    } else if (name === "tool_call") {
      view.toolCall(data);
    } else if (name === "tool_result") {
      view.toolResult(data);
      view.thinking(true);
    } else if (name === "done") {
      view.finish({
        text: data.answer, sources: data.sources, citations: data.citations, linked: data.linked_urls,
        notice: data.notice,
      });
      return true;
    } else if (name === "stopped") {
      // Stop, or the server shutting down: what was written stays, with the sources it cites
      view.finish({ status: data.status || "stopped", sources: data.sources });
      return true;
    } else if (name === "error") {
      view.finish({ error: data.message });
      return true;
    }
    return false;
  }
}
