/**
 * The bounds that hold whatever a script does with the host's interfaces: a call waiting on a server that
 * never answers still ends by its limit plus its HTTP budget, values crossing from Lua cannot break the
 * state (and a state that does break is replaced), log output is bounded over time, and closing a VM does
 * not wait for a request in flight.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { waitFor } from "../../test/fixtures/wait.js";
import { LuaError, type LuaLogLevel, LuaVM } from "./vm.js";

let server: Server;
let host: string;
/** Requests to the server that were closed from the client side (aborted). */
let aborted = 0;
let received = 0;

before(async () => {
  // Never answers.
  server = createServer((req) => {
    received++;
    req.on("close", () => aborted++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Collects garbage often, as a busy daemon does: a timer nothing holds is then lost at once. */
function collectGarbageOften(): () => void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const timer = setInterval(gc, 50);
  return () => clearInterval(timer);
}

test("a call waiting on a silent server still ends by its limit plus its HTTP budget", async () => {
  const limitMs = 300;
  const httpTimeoutMs = 300;
  const vm = await LuaVM.create({ kind: "adapter", timeoutMs: limitMs, httpTimeoutMs, httpAllowedHosts: [host] });
  const stopGC = collectGarbageOften();
  try {
    // string.find runs in C, where the in-Lua hook cannot stop it: only the host's deadline can.
    await vm.loadScript(
      "waiter",
      `return { run = function()
        pcall(http_get, "http://${host}/")
        for i = 1, 5 do string.find(string.rep("a", 3000), ".-.-b") end
      end }`,
    );
    const started = performance.now();
    const err = await vm.call("waiter", "run").catch((e: unknown) => e);
    const ms = performance.now() - started;
    assert.ok(err instanceof LuaError && err.code === "lua_timeout", String(err));
    assert.ok(ms < limitMs + httpTimeoutMs + 1500, `the call ran ${Math.round(ms)} ms`);
  } finally {
    stopGC();
    await vm.close();
  }
});

test("a returned value nested too deep is refused, and the VM works on", async () => {
  const vm = await LuaVM.create({ kind: "plugin" });
  try {
    await vm.loadScript(
      "deep",
      `function nest(d) local t = {} local cur = t for i = 1, d do cur.x = {} cur = cur.x end return t end
       function work() local t = {} for i = 1, 1000 do t[i] = i end return #table.concat(t, ",") end`,
    );
    let ok: unknown = {};
    for (let i = 0; i < 19; i++) ok = { x: ok };
    assert.deepEqual(await vm.call("deep", "nest", [19]), ok, "20 tables deep is fine");
    for (const depth of [20, 30, 300]) {
      await assert.rejects(vm.call("deep", "nest", [depth]), {
        name: "LuaError",
        message: "lua: plugin deep: the returned value is nested too deep (more than 20 tables inside each other)",
      });
      assert.equal(await vm.call("deep", "work"), 3892);
    }
  } finally {
    await vm.close();
  }
});

test("a failure that breaks the Lua state restarts the worker, with the scripts loaded again", async () => {
  const vm = await LuaVM.create({ kind: "plugin" });
  try {
    await vm.loadScript("kept", `return { who = function() return "still " .. name end }`, {
      globals: { name: "here" },
    });
    // Reading the key runs its __tostring outside any protected call: Lua panics and the wasm aborts.
    await vm.loadScript(
      "breaker",
      `return { key = function() return { [setmetatable({}, { __tostring = function() error("no") end })] = 1 } end }`,
    );
    const err = await vm.call("breaker", "key").catch((e: unknown) => e);
    assert.ok(err instanceof LuaError && err.code === "lua_worker", String(err));
    assert.match(err.message, /^lua: plugin breaker: its Lua state broke \(.+\); the Lua worker was restarted$/);
    assert.equal(await vm.call("kept", "who"), "still here");
  } finally {
    await vm.close();
  }
});

test("arguments: null becomes nil, many arguments fit, too deep ones are refused", async () => {
  const vm = await LuaVM.create({ kind: "plugin" });
  try {
    await vm.loadScript("args", `function count(...) return select("#", ...), type((...)) end`);
    assert.deepEqual(await vm.call("args", "count", [null, 1]), 2);
    const many = Array.from({ length: 500 }, (_, i) => i);
    assert.equal(await vm.call("args", "count", many), 500);
    let deep: unknown = 1;
    for (let i = 0; i < 21; i++) deep = [deep];
    await assert.rejects(vm.call("args", "count", [deep]), /an argument is nested more than 20 deep/);
    assert.equal(await vm.call("args", "count", [{ a: null, b: [null, 2] }]), 1);
  } finally {
    await vm.close();
  }
});

test("log output over many calls is bounded by the VM's rate, with a notice of what was dropped", async () => {
  const logs: Array<[LuaLogLevel, string, string]> = [];
  const rate = { linesPerSecond: 10, bytesPerSecond: 20_000, burstLines: 50, burstBytes: 100_000 };
  const vm = await LuaVM.create({ kind: "adapter", log: (...entry) => logs.push(entry), logRate: rate });
  const started = performance.now();
  try {
    // 100 lines a call, under the per-call cap: only the VM's rate can hold them; lines of 8000 characters,
    // so the byte rate binds before the line rate.
    await vm.loadScript("chatty", `function chunk() for i = 1, 100 do log("info", string.rep("S", 8000)) end end`);
    for (let i = 0; i < 20; i++) await vm.call("chatty", "chunk");
  } finally {
    await vm.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const written = logs.filter(([, , m]) => !m.includes("log lines dropped"));
  const bytes = written.reduce((n, [, , m]) => n + m.length, 0);
  assert.ok(bytes <= rate.burstBytes + seconds * rate.bytesPerSecond, `${bytes} characters in ${seconds} s`);
  assert.ok(written.length <= rate.burstLines + seconds * rate.linesPerSecond + 1);
  const notices = logs.filter(([, , m]) => m.includes("log lines dropped"));
  assert.ok(notices.length >= 1 && notices.length <= seconds + 2, `${notices.length} notices`);
  assert.match(
    notices[0][2],
    /^\d+ log lines dropped \(the scripts of one Lua VM may log 10 lines and 20 KiB per second\)/,
  );
});

test("closing a VM does not wait for an HTTP request in flight: the request is aborted", async () => {
  const vm = await LuaVM.create({ kind: "adapter", httpTimeoutMs: 60_000, httpAllowedHosts: [host] });
  const before = { received, aborted };
  const call = vm.loadScript("slow", `return http_post("http://${host}/", "{}")`).catch((e: unknown) => e);
  await waitFor(() => received > before.received, "the request to reach the server");
  await vm.close();
  const err = await call;
  assert.ok(err instanceof LuaError && err.code === "lua_unavailable", String(err));
  await waitFor(() => aborted > before.aborted, "the server to see the request aborted");
});
