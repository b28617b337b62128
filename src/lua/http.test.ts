/**
 * http_get / http_post against a real local server. The server runs in a worker thread: the calls block
 * this thread until they complete, so a server on this thread's event loop could never answer.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Worker } from "node:worker_threads";
import { LuaError, LuaVM } from "./vm.js";

const SERVER = `
const { createServer } = require("node:http");
const { parentPort } = require("node:worker_threads");
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
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
    res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json", "x-echo": "yes" });
    res.end(JSON.stringify({ method: req.method, path: req.url, token: req.headers["x-token"] ?? null, body }));
  });
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
`;

let server: Worker;
let host: string;
let vm: LuaVM;

before(async () => {
  server = new Worker(SERVER, { eval: true });
  const port = await new Promise<number>((resolve) => server.once("message", resolve));
  host = `127.0.0.1:${port}`;
  vm = await LuaVM.create({ kind: "adapter", httpAllowedHosts: [host], httpTimeoutMs: 1500, timeoutMs: 500 });
});
after(async () => {
  vm.close();
  await server.terminate();
});

test("http_get returns body, status and lower-case headers", () => {
  const out = vm.loadScript(
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

test("http_post sends the body; an HTTP error status is returned, not raised", () => {
  const out = vm.loadScript(
    "poster",
    `local body, status = http_post("http://${host}/missing", '{"q":1}', { ["content-type"] = "application/json" })
     return { status = status, seen = json.decode(body).body }`,
  );
  assert.deepEqual(out, { status: 404, seen: '{"q":1}' });
});

test("any other host is refused with the adapter's name", () => {
  assert.throws(
    () => vm.loadScript("nosy", `local body = http_get("http://127.0.0.1:1/steal"); return body`),
    (err: unknown) =>
      err instanceof LuaError &&
      err.message.startsWith("lua: adapter nosy: nosy:1: http_get: host 127.0.0.1:1 is not allowed for adapter nosy"),
  );
  assert.throws(() => vm.loadScript("scheme", `return http_get("file:///etc/passwd")`), /only http and https URLs/);
});

test("a redirect is not followed to another host", () => {
  const out = vm.loadScript(
    "redirect",
    `local _, status, headers = http_get("http://${host}/moved"); return { status, headers.location }`,
  );
  assert.deepEqual(out, [302, "http://127.0.0.2:1/elsewhere"]);
});

test("a server that never answers is cut off at the HTTP budget, and the time waited is not Lua time", () => {
  const started = performance.now();
  assert.throws(
    () => vm.loadScript("waiter", `return http_get("http://${host}/slow")`),
    /http_get http:\/\/127\.0\.0\.1:\d+\/slow: no complete response within 1500 ms/,
  );
  const ms = performance.now() - started;
  assert.ok(ms >= 1400 && ms < 2600, `took ${ms} ms`);
  // A second call gets a fresh budget.
  assert.equal(vm.loadScript("again", `local _, s = http_get("http://${host}/ok"); return s`), 200);
});

test("responses over 1 MiB are refused", () => {
  assert.throws(() => vm.loadScript("big", `return http_get("http://${host}/big")`), /larger than 1048576 bytes/);
});

test("scripts cannot reach the host function behind http_get", () => {
  assert.equal(vm.loadScript("probe", "return type(__ha_http)"), "nil");
});
