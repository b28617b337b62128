/**
 * Streams end with the login session they were opened with: at once on logout (only that session's, not
 * another login's nor an API key's) and at expiry, and at the next heartbeat after a credentials reset
 * made by another process — the registry on its own, then the event stream and a streaming completion in
 * a real daemon.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SseReader } from "../../../test/fixtures/sse-reader.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../../../test/fixtures/webui.js";
import { Auth } from "../../auth/auth.js";
import { SessionStreams } from "./sse-sessions.js";
import { SseStream, type StreamClose } from "./sse-stream.js";

/** How the stream closed, or undefined while it is open. */
function watchClose(stream: SseStream): () => StreamClose | undefined {
  let close: StreamClose | undefined;
  void stream.closed.then((c) => {
    close = c;
  });
  return () => close;
}

describe("SessionStreams", () => {
  it("ends every stream of a session at once, and no other session's", async () => {
    const streams = new SessionStreams();
    const later = Date.now() + 60_000;
    const [a1, a2, b] = [new SseStream(), new SseStream(), new SseStream()];
    streams.hold({ id: "a", expiresAt: later }, a1);
    streams.hold({ id: "a", expiresAt: later }, a2);
    streams.hold({ id: "b", expiresAt: later }, b);
    assert.equal(streams.end("a"), 2);
    assert.equal(a1.isOpen || a2.isOpen, false);
    assert.equal(b.isOpen, true);
    assert.equal((await a1.closed).reason, "revoked");
    assert.equal(streams.end("a"), 0, "nothing is held for it any more");
    await waitFor(() => streams.size === 1, "the ended streams to be let go");
    b.end();
    await waitFor(() => streams.size === 0, "a stream that closed to be let go");
  });

  it("ends a session's streams when the session expires", async () => {
    const streams = new SessionStreams();
    const stream = new SseStream();
    const close = watchClose(stream);
    streams.hold({ id: "s", expiresAt: Date.now() + 30 }, stream);
    await waitFor(close, "the stream to end at expiry");
    assert.equal(close()?.reason, "revoked");
    assert.equal(streams.size, 0);
  });
});

/** Resolves once the body ends ("done") or is cut ("cut"); rejects when it is still open after `timeoutMs`. */
function endOf(reader: ReadableStreamDefaultReader<Uint8Array>, timeoutMs: number): Promise<"done" | "cut"> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the stream was still open after ${timeoutMs} ms`)), timeoutMs);
    const settle = (how: "done" | "cut") => {
      clearTimeout(timer);
      resolve(how);
    };
    const pump = (): void => {
      reader.read().then(
        (r) => (r.done ? settle("done") : pump()),
        () => settle("cut"),
      );
    };
    pump();
  });
}

interface Login {
  cookie: string;
  csrf: string;
}

async function openEvents(web: WebDaemon, headers: Record<string, string>, readers: SseReader[]): Promise<SseReader> {
  const reader = await SseReader.open(`${web.base}/api/v1/chat/events`, headers);
  readers.push(reader);
  assert.equal(reader.status, 200, reader.errorBody);
  return reader;
}

/** A streaming completion made with the session cookie, against an LLM that never stops; read until text flows. */
async function openCompletion(web: WebDaemon, login: Login): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  web.llm.enqueue({ text: "la ", pieceChars: 3, endless: true, frameIntervalMs: 20 });
  const res = await fetch(`${web.base}/v1/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: login.cookie, "X-CSRF-Token": login.csrf },
    body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "sing" }] }),
  });
  if (res.status !== 200) assert.fail(`the completion was refused: ${res.status} ${await res.text()}`);
  const reader = res.body?.getReader();
  assert.ok(reader);
  const decoder = new TextDecoder();
  for (let text = ""; !text.includes('"content":"la "'); ) {
    const { value, done } = await reader.read();
    assert.ok(!done, "the completion ended before any text");
    text += decoder.decode(value, { stream: true });
  }
  return reader;
}

/** Longer than any real answer takes here; far shorter than the 15 s heartbeat the daemon runs with. */
const AT_ONCE_MS = 2000;

describe("a session's streams in a real daemon", () => {
  let web: WebDaemon;
  const readers: SseReader[] = [];
  before(async () => {
    web = await startWebDaemon({ webuiOnly: true });
  });
  after(async () => {
    for (const r of readers) r.close();
    await web?.stop();
  });

  it("logout ends its event stream and streaming completion at once; another login and the API key go on", async () => {
    const [a, b] = [await web.login(), await web.login()];
    const eventsA = await openEvents(web, { Cookie: a.cookie }, readers);
    const eventsB = await openEvents(web, { Cookie: b.cookie }, readers);
    const eventsKey = await openEvents(web, { "X-API-Key": web.apiKey }, readers);
    const completion = await openCompletion(web, a);
    const completionEnd = endOf(completion, AT_ONCE_MS);
    const out = await fetch(`${web.base}/api/v1/logout`, {
      method: "POST",
      headers: { Cookie: a.cookie, "X-CSRF-Token": a.csrf },
    });
    assert.equal(out.status, 200);
    await waitFor(() => eventsA.ended, "the logged-out session's event stream to end", { timeoutMs: AT_ONCE_MS });
    assert.equal(await completionEnd, "cut", "the completion is cut, not passed off as a finished answer");
    await waitFor(() => web.llm.requests.some((r) => r.aborted), "the completion's turn to be cancelled");
    assert.equal(eventsB.ended, false, "the other login's stream is left alone");
    assert.equal(eventsKey.ended, false, "the API key's stream is left alone");
    const chat = await web.json("POST", "/api/v1/chat", { message: "still there?" });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const mine = (f: { event: string; data: string }) =>
      f.event === "agent_output" && JSON.parse(f.data).payload.requestId === chat.body.requestId;
    await eventsB.next(mine);
    await eventsKey.next(mine);
  });
});

describe("a credentials reset from another process", () => {
  let web: WebDaemon;
  const readers: SseReader[] = [];
  before(async () => {
    web = await startWebDaemon({ webuiOnly: true, limits: { sseHeartbeatMs: 100 } });
  });
  after(async () => {
    for (const r of readers) r.close();
    await web?.stop();
  });

  it("ends the session's event stream and streaming completion at their next heartbeat", async () => {
    const login = await web.login();
    const events = await openEvents(web, { Cookie: login.cookie }, readers);
    const completion = await openCompletion(web, login);
    const completionEnd = endOf(completion, 5000);
    // What `homed --reset-credentials` does beside a running daemon.
    const other = Auth.open({ dataDir: web.daemon.paths.root, configDb: web.daemon.paths.configDb, env: {} });
    try {
      await other.resetCredentials();
    } finally {
      other.close();
    }
    await waitFor(() => events.ended, "the event stream to end");
    assert.equal(await completionEnd, "cut");
  });
});
