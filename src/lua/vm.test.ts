/**
 * The sandbox seen from the host: what scripts can reach, the time limit the in-Lua hook enforces (the
 * worker stays alive), errors, logs and the memory cap. Terminating a worker for what the hook cannot stop
 * is in terminate.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { HomeAgentError } from "../util/errors.js";
import { LuaError, type LuaLogLevel, LuaVM } from "./vm.js";

let vm: LuaVM;
const logs: Array<[LuaLogLevel, string, string]> = [];

before(async () => {
  vm = await LuaVM.create({ kind: "adapter", timeoutMs: 300, log: (...entry) => logs.push(entry) });
});
after(() => vm.close());

async function timed(run: () => Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const start = performance.now();
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { err, ms: performance.now() - start };
}

test("dangerous globals are gone from the sandbox", async () => {
  const seen = await vm.loadScript(
    "probe",
    `return { os = type(os), io = type(io), require = type(require), debug = type(debug), package = type(package),
              dofile = type(dofile), loadfile = type(loadfile), collectgarbage = type(collectgarbage),
              dump = type(string.dump), raw_g = type(_G.os) }`,
  );
  assert.deepEqual(seen, {
    os: "nil",
    io: "nil",
    require: "nil",
    debug: "nil",
    package: "nil",
    dofile: "nil",
    loadfile: "nil",
    collectgarbage: "nil",
    dump: "nil",
    raw_g: "nil",
  });
  await assert.rejects(
    vm.loadScript("exec", `return os.execute("id")`),
    /attempt to index a nil value \(global 'os'\)/,
  );
});

test("load accepts text chunks only, in the script's own environment", async () => {
  assert.equal(await vm.loadScript("textload", `x = 41; return load("return x + 1")()`), 42);
  const err = await vm.loadScript("binload", `local f, e = load(string.char(27) .. "Lua"); return e`);
  assert.match(String(err), /attempt to load a binary chunk/);
});

test("an endless loop is stopped at the limit and the VM stays usable", async () => {
  const { err, ms } = await timed(() => vm.loadScript("spin", "while true do end"));
  assert.ok(err instanceof LuaError && err.timedOut);
  assert.ok(err instanceof HomeAgentError && err.code === "lua_timeout");
  assert.equal(err.message, "lua: adapter spin exceeded 300 ms");
  assert.ok(ms >= 290, `stopped after ${ms} ms`);
  assert.equal(await vm.loadScript("after", "return 1 + 1"), 2);
});

test("an endless loop inside a coroutine is stopped too", async () => {
  for (const source of [
    "local co = coroutine.create(function() while true do end end); return coroutine.resume(co)",
    "return coroutine.wrap(function() while true do end end)()",
    "local co = coroutine.create(function() local inner = coroutine.wrap(function() while true do end end); inner() end); return coroutine.resume(co)",
  ]) {
    const { err } = await timed(() => vm.loadScript("co", source));
    assert.ok(err instanceof LuaError && err.timedOut, `not stopped: ${source}`);
  }
});

test("pcall and xpcall cannot swallow the time limit", async () => {
  for (const source of [
    "while true do pcall(function() while true do end end) end",
    "while true do xpcall(function() while true do end end, function(e) return e end) end",
  ]) {
    const { err } = await timed(() => vm.loadScript("catcher", source));
    assert.ok(err instanceof LuaError && err.timedOut, `escaped: ${source}`);
  }
});

test("calls into a loaded script are limited and report the function's errors with the script name", async () => {
  await vm.loadScript(
    "lib",
    `return { add = function(a, b) return a + b end, spin = function() while true do end end,
                                   bad = function() local t = nil; return t.x end }`,
  );
  assert.equal(await vm.call("lib", "add", [2, 3]), 5);
  await assert.rejects(vm.call("lib", "spin", [], { timeoutMs: 50 }), /^LuaError: lua: adapter lib exceeded 50 ms$/);
  const bad = await vm.call("lib", "bad").catch((e: unknown) => e);
  assert.ok(bad instanceof LuaError && bad.code === "lua_error" && !bad.timedOut);
  assert.match(bad.message, /^lua: adapter lib: lib:2: attempt to index a nil value/);
  await assert.rejects(vm.call("lib", "missing"), /lib has no function missing/);
  await assert.rejects(vm.call("nope", "x"), /no script named nope/);
});

test("scripts defining globals can be called by name, each in its own environment", async () => {
  await vm.loadScript("g1", `function hello() return "one" end; string.format = nil`);
  await vm.loadScript("g2", `function hello() return string.format("%s", "two") end`);
  assert.equal(await vm.call("g1", "hello"), "one");
  assert.equal(await vm.call("g2", "hello"), "two");
});

test("log and print reach the host logger with the script name", async () => {
  logs.length = 0;
  await vm.loadScript("talker", `log("warn", "careful", 1); print("a", nil, true); log("loud", "x")`);
  assert.deepEqual(logs, [
    ["warn", "talker", "careful\t1"],
    ["info", "talker", "a\tnil\ttrue"],
    ["info", "talker", "x"],
  ]);
});

test("a script cannot flood the host with log lines in one call", async () => {
  const lines: Array<[LuaLogLevel, string, string]> = [];
  const unthrottled = { burstLines: 1e9, burstBytes: 1e12 };
  const chatty = await LuaVM.create({ kind: "adapter", log: (...entry) => lines.push(entry), logRate: unthrottled });
  const line = "x".repeat(9000);
  try {
    await chatty.loadScript("chatty", `for i = 1, 1500 do log("info", line) end`, {
      globals: { line },
      timeoutMs: 10_000,
    });
  } finally {
    await chatty.close();
  }
  assert.equal(lines.length, 1001);
  assert.ok(lines.slice(0, 1000).every(([, , m]) => m.endsWith("… (cut at 8192 characters)") && m.length < 8300));
  assert.deepEqual(lines[1000], [
    "warn",
    "chatty",
    "more than 1000 log lines in one call; the rest of this call's are dropped",
  ]);
});

test("syntax errors name the script", async () => {
  await assert.rejects(vm.loadScript("broken", "return {"), /^LuaError: lua: adapter broken: broken:1: /);
});

test("memory is capped", async () => {
  const small = await LuaVM.create({ memoryLimitBytes: 8 * 1024 * 1024 });
  try {
    await assert.rejects(small.loadScript("hog", "return string.rep('x', 64 * 1024 * 1024)"), /not enough memory/);
    assert.equal(await small.loadScript("fine", "return 'still here'"), "still here");
  } finally {
    await small.close();
  }
});

test("a closed VM refuses calls", async () => {
  const temp = await LuaVM.create();
  await temp.close();
  await assert.rejects(temp.loadScript("x", "return 1"), /the Lua VM is closed/);
});

test("a script's functions come back as stubs that can be recognised but not run on this thread", async () => {
  const table = (await vm.loadScript("fns", "return { f = function() end, n = 1 }")) as Record<string, unknown>;
  assert.equal(typeof table.f, "function");
  assert.equal(table.n, 1);
  assert.throws(() => (table.f as () => void)(), /call it through LuaVM.call/);
});

test("an error object whose __tostring never returns is stopped by the hook", async () => {
  const { err } = await timed(() =>
    vm.loadScript("tostring", "error(setmetatable({}, {__tostring = function() while true do end end}))"),
  );
  assert.ok(err instanceof LuaError && err.timedOut, String(err));
  assert.equal(await vm.loadScript("after-tostring", "return 'alive'"), "alive");
});

test("error objects are shown through their __tostring", async () => {
  await assert.rejects(
    vm.loadScript("errobj", "error(setmetatable({}, {__tostring = function() return 'custom failure' end}))"),
    /^LuaError: lua: adapter errobj: custom failure$/,
  );
});

test("callEach runs several calls in one round trip and returns every value in order", async () => {
  await vm.loadScript("batch", `local n = 0; return { add = function(x) n = n + x; return n end }`);
  const values = await vm.callEach(
    "batch",
    [1, 2, 3].map((x) => ({ fn: "add", args: [x] })),
  );
  assert.deepEqual(values, [1, 3, 6]);
});

test("a failing call ends its batch and is named by its index", async () => {
  await vm.loadScript(
    "picky",
    `local seen = {}
     return {
       take = function(s) if s == "bad" then error("cannot use " .. s) end; seen[#seen + 1] = s; return s end,
       seen = function() return table.concat(seen, ",") end,
     }`,
  );
  const calls = ["a", "bad", "c"].map((s) => ({ fn: "take", args: [s] }));
  const err = await vm.callEach("picky", calls).catch((e: unknown) => e);
  assert.ok(err instanceof LuaError);
  assert.equal(err.callIndex, 1);
  assert.match(err.message, /cannot use bad/);
  assert.equal(await vm.call("picky", "seen"), "a", "the calls after the failing one did not run");
});

test("a batch shares one time limit, and the call that ran past it is named", async () => {
  await vm.loadScript(
    "slow",
    `return { spin = function(ms) local t = 0; for i = 1, ms * 20000 do t = t + i end; return t end }`,
  );
  const { err } = await timed(() =>
    vm.callEach(
      "slow",
      [0, 0, 1e6].map((ms) => ({ fn: "spin", args: [ms] })),
    ),
  );
  assert.ok(err instanceof LuaError && err.timedOut, String(err));
  assert.equal(err.callIndex, 2);
});
