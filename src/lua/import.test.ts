/**
 * Shared libraries: import(name) runs text the host handed over, in the sandbox and under the time limit of
 * the script that imports it, once per script.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { LuaError, LuaVM } from "./vm.js";

let vm: LuaVM;
const loads: string[] = [];

const LIBRARIES = {
  greet: `log("info", "greet loaded"); return { hello = function(who) return "hello " .. who end }`,
  probe: `local found = {}
          for _, k in ipairs({ "os", "io", "require", "dofile", "loadfile", "package", "debug" }) do
            if _ENV[k] ~= nil then found[#found + 1] = k end
          end
          return { found = table.concat(found, " "), bytecode = select(2, load(string.char(27) .. "LuaT")),
                   source = source and source.name }`,
  spin: "while true do end",
  broken: `error("bad library")`,
  cycle_a: `return import("cycle_b")`,
  cycle_b: `return import("cycle_a")`,
};

before(async () => {
  vm = await LuaVM.create({
    kind: "adapter",
    timeoutMs: 300,
    log: (_, script, message) => loads.push(script + message),
  });
});
after(() => vm.close());

const load = (name: string, source: string, globals?: Record<string, unknown>) =>
  vm.loadScript(name, source, { libraries: LIBRARIES, globals });

test("import returns the library's table, evaluated once per script", async () => {
  loads.length = 0;
  const seen = await load(
    "twice",
    `local a, b = import("greet"), import("greet"); return { a.hello("you"), rawequal(a, b) }`,
  );
  assert.deepEqual(seen, ["hello you", true]);
  assert.deepEqual(loads, ["twicegreet loaded"], "run once, logging under the importing script's name");
});

test("scripts sharing a VM each get their own copy of a library", async () => {
  await load("vandal", `import("greet").hello = nil; return true`);
  assert.equal(await load("victim", `return import("greet").hello("still")`), "hello still");
});

test("an unknown library is an error that names it and lists the available ones", async () => {
  await assert.rejects(
    load("unknown", `local lib = import("nope")`),
    /unknown:1: import: no library named nope \(available: broken, cycle_a, cycle_b, greet, probe, spin\)/,
  );
  await assert.rejects(load("badname", "return import(42)"), /import: the library name must be a string/);
});

test("a VM that is not for adapters offers no libraries unless given some", async () => {
  const plain = await LuaVM.create();
  try {
    await assert.rejects(plain.loadScript("p", `return import("openai_compat")`), /\(available: none\)/);
  } finally {
    await plain.close();
  }
});

test("a library is sandboxed like a script and sees the script's globals", async () => {
  assert.deepEqual(await load("probing", `return import("probe")`, { source: { name: "src" } }), {
    found: "",
    bytecode: "attempt to load a binary chunk (mode is 't')",
    source: "src",
  });
});

test("a library stuck in a loop is stopped at the importing script's time limit", async () => {
  await assert.rejects(
    load("spinner", `return import("spin")`),
    (err) => err instanceof LuaError && err.timedOut && err.message === "lua: adapter spinner exceeded 300 ms",
  );
  assert.equal(await load("after-spin", `return import("greet").hello("again")`), "hello again");
});

test("a library's errors name its file; an import cycle is reported", async () => {
  await assert.rejects(load("breaks", `return import("broken")`), /lib\/broken:1: bad library/);
  await assert.rejects(
    load("cycles", `return import("cycle_a")`),
    /library cycle_a imports itself \(an import cycle\)/,
  );
});
