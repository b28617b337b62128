/**
 * http_get / http_post against a real local server that runs on this (the main) thread: a script waiting on
 * HTTP blocks only its worker, so this thread stays free to serve the very request the script is waiting on.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { waitFor } from "../../test/fixtures/wait.js";
import { LuaError, LuaVM } from "./vm.js";

let server: Server;
let host: string;
let vm: LuaVM;
/** Requests to /gate wait here until the test lets them through. */
let openGate: () => void = () => {};
let gateSeen = false;

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      if (req.url === "/slow") return; // never answers
      if (req.url === "/big") {
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("x".repeat(2 * 1024 * 1024));
      }
      if (req.url === "/moved") {
        res.writeHead(302, { location: "http://127.0.0.2:1/elsewhere" });
        return res.end();
      }
      if (req.url === "/gate") {
        gateSeen = true;
        openGate = () => res.end("through");
        return;
      }
      res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json", "x-echo": "yes" });
      res.end(JSON.stringify({ method: req.method, path: req.url, token: req.headers["x-token"] ?? null, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The HTTP budget is longer than the Lua limit plus its grace (750 ms): waiting past that is not Lua time.
  vm = await LuaVM.create({ kind: "adapter", httpAllowedHosts: [host], httpTimeoutMs: 1000, timeoutMs: 500 });
});
after(async () => {
  await vm.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test("http_get returns body, status and lower-case headers", async () => {
  const out = await vm.loadScript(
    "getter",
    `local body, status, headers = http_get("http://${host}/hello?x=1", { ["X-Token"] = "t1" })
     return { status = status, echo = headers["x-echo"], seen = json.decode(body) }`,
  );
  assert.deepEqual(out, {
    status: 200,
    echo: "yes",
    seen: { method: "GET", path: "/hello?x=1", token: "t1", body: "" },
  });
});

test("http_post sends the body; an HTTP error status is returned, not raised", async () => {
  const out = await vm.loadScript(
    "poster",
    `local body, status = http_post("http://${host}/missing", '{"q":1}', { ["content-type"] = "application/json" })
     return { status = status, seen = json.decode(body).body }`,
  );
  assert.deepEqual(out, { status: 404, seen: '{"q":1}' });
});

test("the main thread keeps running while a script waits on HTTP", async () => {
  const events: string[] = [];
  const call = vm.loadScript("patient", `return http_get("http://${host}/gate")`).then((body) => {
    events.push(`lua got ${body}`);
  });
  await waitFor(() => gateSeen, "the script's request to reach the server");
  events.push("server saw the request");
  await new Promise((resolve) => setImmediate(resolve));
  events.push("main thread tick");
  openGate();
  await call;
  assert.deepEqual(events, ["server saw the request", "main thread tick", "lua got through"]);
});

test("any other host is refused with the adapter's name", async () => {
  await assert.rejects(
    vm.loadScript("nosy", `local body = http_get("http://127.0.0.1:1/steal"); return body`),
    (err: unknown) =>
      err instanceof LuaError &&
      err.message.startsWith("lua: adapter nosy: nosy:1: http_get: host 127.0.0.1:1 is not allowed for adapter nosy"),
  );
  await assert.rejects(vm.loadScript("scheme", `return http_get("file:///etc/passwd")`), /only http and https URLs/);
});

test("a redirect is not followed to another host", async () => {
  const out = await vm.loadScript(
    "redirect",
    `local _, status, headers = http_get("http://${host}/moved"); return { status, headers.location }`,
  );
  assert.deepEqual(out, [302, "http://127.0.0.2:1/elsewhere"]);
});

test("a server that never answers is cut off at the HTTP budget, and the time waited is not Lua time", async () => {
  const started = performance.now();
  await assert.rejects(
    vm.loadScript("waiter", `return http_get("http://${host}/slow")`),
    /http_get http:\/\/127\.0\.0\.1:\d+\/slow: no complete response within 1000 ms/,
  );
  const ms = performance.now() - started;
  assert.ok(ms >= 900, `cut off after ${ms} ms, before the budget`);
  // A second call gets a fresh budget.
  assert.equal(await vm.loadScript("again", `local _, s = http_get("http://${host}/ok"); return s`), 200);
});

test("the HTTP budget is shared by all the requests of one call", async () => {
  await assert.rejects(
    vm.loadScript("greedy", `pcall(http_get, "http://${host}/slow"); return http_get("http://${host}/ok")`),
    /the 1000 ms HTTP budget of this call is used up/,
  );
});

test("responses over 1 MiB are refused", async () => {
  await assert.rejects(vm.loadScript("big", `return http_get("http://${host}/big")`), /body is larger than 1 MiB/);
});

test("scripts cannot reach the host function behind http_get", async () => {
  assert.equal(await vm.loadScript("probe", "return type(__ha_http)"), "nil");
});
