/**
 * The server around the routes, over real HTTP: security headers on every answer, JSON errors (404, 405,
 * 413, 500 without internals), the Host guard, the request log (the dashboard's pages: web-assets.test.ts),
 * a port in use (the plugin fails, the daemon runs) and a stop that cuts open connections.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Hono } from "hono";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import {
  type RawSocket,
  rawRequest,
  rawSocket,
  startWebDaemon,
  startWebuiAlone,
  TEST_API_KEY,
  type WebDaemon,
} from "../../../test/fixtures/webui.js";
import { ApiError, type WebEnv } from "./context.js";
import { installErrorHandlers } from "./errors.js";
import { isAllowedHost } from "./host-guard.js";
import { DEFAULT_LIMITS, serverTimeouts } from "./limits.js";
import { isLoopback, parseListenAddress } from "./listen.js";
import { isUnsafe } from "./request-log.js";

let w: WebDaemon;
before(async () => {
  w = await startWebDaemon({ webuiOnly: true });
});
after(() => w.stop());

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'self'",
};

function linkOf(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** The dashboard's pages carry a stricter CSP (web-assets.test.ts checks it); it starts the same way. */
function assertSecurityHeaders(res: Response, what: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    const got = res.headers.get(name) ?? "";
    assert.ok(got === value || (name === "content-security-policy" && got.startsWith(`${value};`)), `${what}: ${name}`);
  }
}

describe("answers", () => {
  test("every answer carries the security headers: pages, assets, JSON, errors", async () => {
    const keyed = { "X-API-Key": TEST_API_KEY };
    const cases: Array<[string, RequestInit]> = [
      ["/login", {}],
      ["/assets/login.js", {}],
      ["/", {}],
      ["/api/v1/status", {}],
      ["/api/v1/status", { headers: keyed }],
      ["/api/v1/nope", { headers: keyed }],
      ["/api/v1/status", { method: "DELETE", headers: keyed }],
    ];
    for (const [path, init] of cases) {
      const res = await fetch(w.base + path, init);
      await res.arrayBuffer();
      assertSecurityHeaders(res, `${init.method ?? "GET"} ${path} (${res.status})`);
    }
  });

  test("API answers are not cached; HEAD is answered like GET", async () => {
    const res = await w.fetch("/api/v1/status");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const head = await w.fetch("/api/v1/status", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  });

  test("HEAD releases what the GET handler opened: HEADs of the event stream hold no stream slot", async () => {
    const runtime = async () => (await w.json("GET", "/api/v1/runtime")).body.sse.clients as number;
    const before = await runtime();
    for (let i = 0; i < 70; i++) {
      const res = await w.fetch("/api/v1/chat/events", { method: "HEAD" });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "");
    }
    await waitFor(async () => (await runtime()) === before, "the HEADs' stream slots to be free");
    const ac = new AbortController();
    const live = await w.fetch("/api/v1/chat/events", { signal: ac.signal });
    assert.equal(live.status, 200, "a real client still gets a stream");
    ac.abort();
  });

  test("unknown paths are 404 JSON; OpenAI paths also carry the error type", async () => {
    const api = await w.json("GET", "/api/v1/nope?x=1");
    assert.equal(api.status, 404);
    assert.equal(api.body.error.code, "not_found");
    assert.match(api.headers.get("content-type") ?? "", /^application\/json/);
    const openai = await w.json("GET", "/v1/nope");
    assert.equal(openai.status, 404);
    assert.deepEqual(Object.keys(openai.body.error).sort(), ["code", "message", "type"]);
    assert.equal(openai.body.error.type, "invalid_request_error");
  });

  test("a known path with another method is 405 with Allow", async () => {
    const res = await w.json("DELETE", "/api/v1/status");
    assert.equal(res.status, 405);
    assert.equal(res.body.error.code, "method_not_allowed");
    assert.equal(res.headers.get("allow"), "GET, HEAD");
    const put = await w.json("POST", "/api/v1/settings", {});
    assert.equal(put.status, 405);
    assert.equal(put.headers.get("allow"), "GET, HEAD, PUT");
  });

  test("a body over its limit is 413, whether announced by Content-Length or streamed without one", async () => {
    const big = JSON.stringify({ key: "core.agent.max_tool_turns", value: "x".repeat(1024 * 1024) });
    const declared = await w.fetch("/api/v1/settings", {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: big,
    });
    assert.equal(declared.status, 413);
    assert.equal(((await declared.json()) as { error: { code: string } }).error.code, "body_too_large");
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"key":"a","value":"'));
        if (sent > 4 * 1024 * 1024) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const streamed = await w.fetch("/api/v1/settings", {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    assert.equal(streamed.status, 413);
  });

  test("an unexpected failure is a 500 that names no internals; the log has them", async () => {
    const app = new Hono<WebEnv>();
    const logged: string[] = [];
    installErrorHandlers(app, (m) => logged.push(m));
    app.get("/boom", () => {
      throw new Error("secret detail at /home/user/x.ts:12");
    });
    app.get("/refused", () => {
      throw new ApiError(429, "auth_rate_limited", "wait", { retryAfterS: 7 });
    });
    const res = await app.request("/boom");
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.deepEqual(JSON.parse(text), {
      error: { code: "internal_error", message: "the server failed to answer; the daemon log has the details" },
    });
    assert.doesNotMatch(text, /secret detail|x\.ts/);
    assert.match(logged.join("\n"), /GET \/boom failed: Error: secret detail/);
    const refused = await app.request("/refused");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "7");
  });
});

describe("the Host guard", () => {
  const port = () => new URL(w.base).port;
  const get = (host: string) =>
    rawRequest(w.base, { path: "/api/v1/status", headers: { Host: host, "X-API-Key": TEST_API_KEY } });

  test("the listen address and the loopback names on its port are answered; others are 403", async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, `[::1]:${port()}`, `LOCALHOST:${port()}`]) {
      assert.equal((await get(host)).status, 200, host);
    }
    for (const host of [
      "evil.example",
      `evil.example:${port()}`,
      "localhost",
      "127.0.0.1:1",
      `localhost.evil:${port()}`,
    ]) {
      const res = await get(host);
      assert.equal(res.status, 403, host);
      assert.equal(JSON.parse(res.body).error.code, "host_not_allowed");
      assert.equal(res.headers["x-frame-options"], "DENY");
    }
  });

  test("the guard comes before auth: a foreign Host learns nothing, not even that credentials are missing", async () => {
    const res = await rawRequest(w.base, { path: "/api/v1/status", headers: { Host: "evil.example" } });
    assert.equal(res.status, 403);
  });

  test("plugin.webui.allowed_hosts adds names at once: a bare name on any port, name:port exactly", async () => {
    w.daemon.config.set("plugin.webui.allowed_hosts", "homeagent.lan, proxy.lan:443");
    try {
      assert.equal((await get("homeagent.lan")).status, 200);
      assert.equal((await get(`homeagent.lan:${port()}`)).status, 200);
      assert.equal((await get("proxy.lan:443")).status, 200);
      assert.equal((await get("proxy.lan")).status, 403);
      assert.equal((await get("proxy.lan:80")).status, 403);
    } finally {
      w.daemon.config.set("plugin.webui.allowed_hosts", "");
    }
    assert.equal((await get("homeagent.lan")).status, 403);
  });

  test("isAllowedHost: IPv6 listen addresses and empty hosts", () => {
    assert.ok(isAllowedHost("[::1]:80", { host: "::1", port: 80 }, []));
    assert.ok(isAllowedHost("[fd00::1]:80", { host: "fd00::1", port: 80 }, []));
    assert.ok(!isAllowedHost("", { host: "127.0.0.1", port: 80 }, [""]));
    assert.ok(isAllowedHost("[fd00::2]", { host: "127.0.0.1", port: 80 }, ["[fd00::2]"]));
  });
});

describe("the request log", () => {
  test("one line per request: method, path without query, status, duration, auth kind, address", async () => {
    const before = w.logs.length;
    await w.json("GET", "/api/v1/status?secret=query");
    await fetch(`${w.base}/api/v1/status`);
    await waitFor(() => w.logs.length >= before + 2, "two request log lines");
    const lines = w.logs.slice(before).join("");
    assert.match(lines, /INFO +\[webui\] GET \/api\/v1\/status 200 \d+ms auth=key from 127\.0\.0\.1\n/);
    assert.match(lines, /GET \/api\/v1\/status 401 \d+ms auth=none from 127\.0\.0\.1/);
    assert.doesNotMatch(lines, /secret=query/);
  });

  test("a path cannot forge or hide log lines: control characters and bidi overrides are percent-encoded", async () => {
    const before = w.logs.length;
    const forged = "/api/v1/x%0d%0a2026-01-01T00:00:00.000Z%20INFO%20[homed]%20forged%1b[2J%08%7f%c2%85%e2%80%ae";
    await rawRequest(w.base, { path: forged, headers: { Host: new URL(w.base).host } });
    await waitFor(() => w.logs.length > before, "the request's log line");
    const line = w.logs.slice(before).find((l) => l.includes("/api/v1/x")) ?? "";
    assert.match(
      line,
      /GET \/api\/v1\/x%0D%0A2026-01-01T00:00:00\.000Z INFO \[homed\] forged%1B\[2J%08%7F%C2%85%E2%80%AE 401 /,
    );
    assert.ok(![...line.slice(0, -1)].some((ch) => isUnsafe(ch.codePointAt(0) ?? 0)), "no control character is left");
  });

  test("plugin.webui.request_log = false turns it off at once", async () => {
    w.daemon.config.set("plugin.webui.request_log", "false");
    try {
      const before = w.logs.length;
      await w.json("GET", "/api/v1/runtime");
      await w.json("GET", "/api/v1/status");
      assert.ok(!w.logs.slice(before).some((l) => l.includes("/api/v1/runtime")));
    } finally {
      w.daemon.config.set("plugin.webui.request_log", "true");
    }
  });
});

describe("listening", () => {
  test("listen addresses: host:port and [v6]:port; anything else names the setting", () => {
    assert.deepEqual(parseListenAddress("127.0.0.1:8080"), { host: "127.0.0.1", port: 8080 });
    assert.deepEqual(parseListenAddress("[::1]:0"), { host: "::1", port: 0 });
    assert.deepEqual(parseListenAddress("localhost:80"), { host: "localhost", port: 80 });
    for (const bad of ["8080", "127.0.0.1", ":8080", "::1:80", "a b:80", "127.0.0.1:70000", "127.0.0.1:-1"]) {
      assert.throws(() => parseListenAddress(bad), /plugin\.webui\.listen_addr/, bad);
    }
    assert.ok(isLoopback("127.0.0.1") && isLoopback("127.1.2.3") && isLoopback("::1") && isLoopback("localhost"));
    assert.ok(!isLoopback("0.0.0.0") && !isLoopback("::") && !isLoopback("192.168.1.2"));
  });

  test("a port in use: the webui plugin fails with an error naming plugin.webui.listen_addr; the daemon runs", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const logs: string[] = [];
    const { daemon } = await startWebuiAlone({ listenAddr: `127.0.0.1:${port}` }, { logWrite: (l) => logs.push(l) });
    try {
      const info = daemon.plugins.list().find((p) => p.name === "webui");
      assert.equal(info?.state, "failed");
      assert.match(
        info?.lastError ?? "",
        new RegExp(`plugin\\.webui\\.listen_addr 127\\.0\\.0\\.1:${port} is already in use`),
      );
      assert.equal(daemon.status().version.length > 0, true, "the daemon answers");
      assert.ok(logs.some((l) => l.includes("homed") && l.includes("ready")));
    } finally {
      await daemon.stop();
      blocker.close();
    }
  });

  test("a listen address that is not host:port fails the plugin with the setting's name", async () => {
    const { daemon } = await startWebuiAlone({ listenAddr: "nonsense" });
    try {
      const info = daemon.plugins.list().find((p) => p.name === "webui");
      assert.equal(info?.state, "failed");
      assert.match(info?.lastError ?? "", /plugin\.webui\.listen_addr is "nonsense", which is not host:port/);
    } finally {
      await daemon.stop();
    }
  });

  test("slowloris and clients that stop reading are cut: a header deadline and an idle timeout", async () => {
    assert.ok(serverTimeouts(DEFAULT_LIMITS).headersMs <= 10_000, "headers within 10 s by default");
    assert.ok(serverTimeouts(DEFAULT_LIMITS).idleMs > DEFAULT_LIMITS.chatTimeoutMs, "a silent sync chat is not cut");
    const dataDir = tempDir("ha-webui-slow-");
    const { daemon, plugin } = await startWebuiAlone(
      { listenAddr: "127.0.0.1:0", timeouts: { headersMs: 300, checkMs: 50, idleMs: 500 } },
      { dataDir },
    );
    const sockets: RawSocket[] = [];
    const port = plugin.address()?.port ?? 0;
    try {
      const host = `127.0.0.1:${port}`;
      const slow = await rawSocket(port, sockets);
      slow.socket.write(`GET /api/v1/status HTTP/1.1\r\nHost: ${host}\r\n`);
      const drip = setInterval(() => slow.socket.write("X-Slow: 1\r\n"), 50);
      try {
        await waitFor(slow.closed, "the trickling connection to be cut", { timeoutMs: 3000 });
      } finally {
        clearInterval(drip);
      }
      assert.match(slow.received(), /^HTTP\/1\.1 408/);
      // A client that stops reading never sees the server's FIN (it waits behind the unread bytes), so the
      // cut shows on the server's side: the file it was serving gets closed.
      const dir = join(dataDir, "workspace", "uploads");
      mkdirSync(dir, { recursive: true });
      const file = join(dir, "big.bin");
      writeFileSync(file, Buffer.alloc(32 * 1024 * 1024));
      const served = () => readdirSync("/proc/self/fd").filter((fd) => linkOf(`/proc/self/fd/${fd}`) === file).length;
      const lazy = await rawSocket(port, sockets);
      lazy.socket.pause();
      lazy.socket.write(`GET /uploads/big.bin HTTP/1.1\r\nHost: ${host}\r\nX-API-Key: ${TEST_API_KEY}\r\n\r\n`);
      await waitFor(() => served() > 0, "the download to start");
      await waitFor(() => served() === 0, "the connection that stopped reading to be cut", { timeoutMs: 5000 });
    } finally {
      for (const s of sockets) s.socket.destroy();
      await daemon.stop();
    }
  });

  test("stopping the plugin cuts open connections at once, a request still sending its body included", async () => {
    const s = await startWebDaemon({ webuiOnly: true });
    try {
      const base = s.base;
      const url = new URL(base);
      const raw = await rawSocket(Number(url.port), []);
      raw.socket.write(
        `PUT /api/v1/settings HTTP/1.1\r\nHost: ${url.host}\r\nX-API-Key: ${TEST_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"key":`,
      );
      const idle = await fetch(`${base}/api/v1/status`, { headers: { "X-API-Key": TEST_API_KEY } });
      await idle.text();
      const started = performance.now();
      await s.daemon.plugins.disable("webui");
      assert.ok(performance.now() - started < 2000, `stopped in ${Math.round(performance.now() - started)} ms`);
      await waitFor(raw.closed, "the half-sent request's connection to close", { timeoutMs: 2000 });
      await assert.rejects(fetch(`${base}/api/v1/status`), "nothing listens any more");
      assert.equal(s.webui().address(), null);
    } finally {
      await s.stop();
    }
  });
});
