// @ts-check
// The server's API (docs/http-api.md), as the page uses it.

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

export async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, body);
  return body;
}

export async function postJSON(url, data, signal) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(data),
    signal,
  });
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, body);
  return body;
}

// Posts `request` to an endpoint that answers with Server-Sent Events and
// calls handlers[event] with each event's data as it streams in. Resolves
// with the data of the event named `last` (null when aborted through
// `signal`, which also closes the stream and so stops the server's work).
async function stream(url, request, handlers, signal, last) {
  let r;
  try {
    r = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(request),
      signal,
    });
  } catch (e) {
    if (signal && signal.aborted) return null;
    throw e;
  }
  if (!r.ok) {
    const body = await r.json().catch(() => null);
    throw new ApiError(r.status, body);
  }
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let result = null;
  try {
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
        if (!data.length) continue; // a keep-alive comment
        const payload = JSON.parse(data.join("\n"));
        if (name === last) result = payload;
        if (name === "error") throw new ApiError(500, payload);
        if (handlers[name]) handlers[name](payload);
      }
    }
  } catch (e) {
    if (signal && signal.aborted) return null;
    throw e;
  }
  return result;
}

// Runs a search (/api/analyse): start, info, progress and bestmove events;
// resolves with the bestmove data.
export function analyse(request, handlers, signal) {
  return stream("/api/analyse", request, handlers, signal, "bestmove");
}

// Reviews a game (/api/review): start, one position event per position
// searched, then review; resolves with the review data (null when stopped).
export function review(request, handlers, signal) {
  return stream("/api/review", request, handlers, signal, "review");
}

// What to tell a person about a failed request: a refused move's reason,
// or the error's message.
export function errorText(e) {
  if (e instanceof ApiError) return e.body && e.body.why ? e.body.why : e.message;
  return e && e.message ? e.message : String(e);
}
