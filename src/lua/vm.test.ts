import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { LuaError, type LuaLogLevel, LuaVM } from "./vm.js";

let vm: LuaVM;
const logs: Array<[LuaLogLevel, string, string]> = [];

before(async () => {
  vm = await LuaVM.create({ kind: "adapter", timeoutMs: 300, log: (...entry) => logs.push(entry) });
});
after(() => vm.close());

function timed(fn: () => unknown): { err: unknown; ms: number } {
  const start = performance.now();
  try {
    fn();
  } catch (err) {
    return { err, ms: performance.now() - start };
  }
  return { err: undefined, ms: performance.now() - start };
}

test("dangerous globals are gone from the sandbox", () => {
  const seen = vm.loadScript(
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
  assert.throws(() => vm.loadScript("exec", `return os.execute("id")`), /attempt to index a nil value \(global 'os'\)/);
});

test("load accepts text chunks only, in the script's own environment", () => {
  assert.equal(vm.loadScript("textload", `x = 41; return load("return x + 1")()`), 42);
  const err = vm.loadScript("binload", `local f, e = load(string.char(27) .. "Lua"); return e`);
  assert.match(String(err), /attempt to load a binary chunk/);
});

test("an endless loop is stopped at the limit and the VM stays usable", () => {
  const { err, ms } = timed(() => vm.loadScript("spin", "while true do end"));
  assert.ok(err instanceof LuaError && err.timedOut);
  assert.equal(err.message, "lua: adapter spin exceeded 300 ms");
  assert.ok(ms >= 290 && ms < 1500, `stopped after ${ms} ms`);
  assert.equal(vm.loadScript("after", "return 1 + 1"), 2);
});

test("an endless loop inside a coroutine is stopped too", () => {
  for (const source of [
    "local co = coroutine.create(function() while true do end end); return coroutine.resume(co)",
    "return coroutine.wrap(function() while true do end end)()",
    "local co = coroutine.create(function() local inner = coroutine.wrap(function() while true do end end); inner() end); return coroutine.resume(co)",
  ]) {
    const { err, ms } = timed(() => vm.loadScript("co", source));
    assert.ok(err instanceof LuaError && err.timedOut, `not stopped: ${source}`);
    assert.ok(ms < 1500);
  }
});

test("pcall and xpcall cannot swallow the time limit", () => {
  for (const source of [
    "while true do pcall(function() while true do end end) end",
    "while true do xpcall(function() while true do end end, function(e) return e end) end",
  ]) {
    const { err } = timed(() => vm.loadScript("catcher", source));
    assert.ok(err instanceof LuaError && err.timedOut, `escaped: ${source}`);
  }
});

test("calls into a loaded script are limited and report the function's errors with the script name", () => {
  vm.loadScript(
    "lib",
    `return { add = function(a, b) return a + b end, spin = function() while true do end end,
                                   bad = function() local t = nil; return t.x end }`,
  );
  assert.equal(vm.call("lib", "add", [2, 3]), 5);
  assert.throws(() => vm.call("lib", "spin", [], { timeoutMs: 50 }), /^LuaError: lua: adapter lib exceeded 50 ms$/);
  assert.throws(() => vm.call("lib", "bad"), /^LuaError: lua: adapter lib: lib:2: attempt to index a nil value/);
  assert.throws(() => vm.call("lib", "missing"), /lib has no function missing/);
  assert.throws(() => vm.call("nope", "x"), /no script named nope/);
});

test("scripts defining globals can be called by name, each in its own environment", () => {
  vm.loadScript("g1", `function hello() return "one" end; string.format = nil`);
  vm.loadScript("g2", `function hello() return string.format("%s", "two") end`);
  assert.equal(vm.call("g1", "hello"), "one");
  assert.equal(vm.call("g2", "hello"), "two");
});

test("log and print reach the host logger with the script name", () => {
  logs.length = 0;
  vm.loadScript("talker", `log("warn", "careful", 1); print("a", nil, true); log("loud", "x")`);
  assert.deepEqual(logs, [
    ["warn", "talker", "careful\t1"],
    ["info", "talker", "a\tnil\ttrue"],
    ["info", "talker", "x"],
  ]);
});

test("syntax errors name the script", () => {
  assert.throws(() => vm.loadScript("broken", "return {"), /^LuaError: lua: adapter broken: broken:1: /);
});

test("memory is capped", async () => {
  const small = await LuaVM.create({ memoryLimitBytes: 8 * 1024 * 1024 });
  try {
    assert.throws(() => small.loadScript("hog", "return string.rep('x', 64 * 1024 * 1024)"), /not enough memory/);
    assert.equal(small.loadScript("fine", "return 'still here'"), "still here");
  } finally {
    small.close();
  }
});

test("a closed VM refuses calls", async () => {
  const temp = await LuaVM.create();
  temp.close();
  assert.throws(() => temp.loadScript("x", "return 1"), /the Lua VM is closed/);
});
