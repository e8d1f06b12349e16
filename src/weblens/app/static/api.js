// Talking to the weblens server: JSON calls and server-sent event streams.
// On an address other machines can reach, the API wants the server's token (WEBLENS_MCP_TOKEN):
// the page asks for it once per tab.

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

async function request(method, path, body, extra = {}) {
  const init = { method, headers: authHeaders(), ...extra };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (askForToken(response)) return request(method, path, body, extra);
  return response;
}

export class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function errorOf(response) {
  try {
    const data = await response.json();
    if (data && data.error) return new ApiError(data.error.message || data.error.code, response.status, data.error.code);
  } catch (_) { /* not JSON */ }
  return new ApiError(`HTTP ${response.status}`, response.status, "");
}

export async function api(method, path, body) {
  const response = await request(method, path, body);
  if (!response.ok) throw await errorOf(response);
  return response.status === 204 ? null : response.json();
}

/** A request that must reach the server even while the page unloads (e.g. a pending delete). */
export function sendWhileLeaving(method, path) {
  fetch(path, { method, headers: authHeaders(), keepalive: true }).catch(() => {});
}

/** Read a text/event-stream response, calling onEvent(name, data) for each event; resolves at its end. */
export async function stream(method, path, body, onEvent, signal) {
  const response = await request(method, path, body, { signal });
  if (!response.ok) throw await errorOf(response);
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
