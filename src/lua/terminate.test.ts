/**
 * What the in-Lua hook cannot stop, the host does: the worker running the state is terminated when a call
 * passes its limit, the main thread runs on meanwhile, and a fresh worker serves later calls with every
 * script loaded again. Event order is asserted, not wall-clock figures.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { entryPath, NODE_FLAGS } from "../../test/fixtures/node-entry.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { LuaError, LuaVM, MAX_WAITING_CALLS } from "./vm.js";

const LIMIT_MS = 300;

const HOSTILE = `
local attacks = {
  gc = function()
    setmetatable({}, { __gc = function() while true do end end })
    for i = 1, 2e6 do local x = { i } end
  end,
  find = function() return string.find(string.rep("a", 2000), ".-.-b") end,
  loop = function() while true do end end,
}
return {
  attack = function(name)
    log("info", "attack " .. name)
    attacks[name]()
  end,
}`;

let vm: LuaVM;
const logs: string[] = [];

before(async () => {
  vm = await LuaVM.create({
    kind: "adapter",
    timeoutMs: LIMIT_MS,
    libraries: { greet: `return { hello = function(who) return "hello " .. who end }` },
    log: (_, script, message) => logs.push(`${script}: ${message}`),
  });
  await vm.loadScript("keeper", `local g = import("greet"); function who() return g.hello(source.name) end`, {
    globals: { source: { name: "kept" } },
  });
  await vm.loadScript("hostile", HOSTILE);
});
after(() => vm.close());

for (const attack of ["gc", "find", "loop"]) {
  test(`${attack}: the call fails at its limit while the main thread runs on, and the scripts survive`, async () => {
    logs.length = 0;
    const events: string[] = [];
    const call = vm.call("hostile", "attack", [attack]).then(
      () => events.push("call returned"),
      (err: unknown) => {
        events.push("call failed");
        return err;
      },
    );
    await waitFor(() => logs.includes(`hostile: attack ${attack}`), "the attack to start");
    await new Promise((resolve) => setImmediate(resolve));
    events.push("main thread tick");
    const err = await call;
    assert.deepEqual(events, ["main thread tick", "call failed"]);
    assert.ok(err instanceof LuaError && err.timedOut && err.code === "lua_timeout", String(err));
    assert.equal(err.message, `lua: adapter hostile exceeded ${LIMIT_MS} ms`);
    assert.equal(await vm.call("keeper", "who"), "hello kept", "loaded again, with its globals and libraries");
  });
}

test("calls are served one at a time, in order, each with its own limit", async () => {
  const settled: string[] = [];
  const track = (name: string, p: Promise<unknown>) =>
    p.then(
      (v) => settled.push(`${name}=${v}`),
      (e: LuaError) => settled.push(`${name}:${e.code}`),
    );
  await Promise.all([
    track("find", vm.call("hostile", "attack", ["find"])),
    track("who", vm.call("keeper", "who")),
    track("loop", vm.call("hostile", "attack", ["loop"], { timeoutMs: 100 })),
    track("again", vm.call("keeper", "who")),
  ]);
  assert.deepEqual(settled, ["find:lua_timeout", "who=hello kept", "loop:lua_timeout", "again=hello kept"]);
});

test("beyond the waiting cap a call is refused at once", async () => {
  const running = vm.call("hostile", "attack", ["loop"]).catch((e: LuaError) => e.code);
  const results = await Promise.all(
    Array.from({ length: MAX_WAITING_CALLS + 1 }, () =>
      vm.call("keeper", "who").catch((e: LuaError) => `${e.code}: ${e.detail}`),
    ),
  );
  const refused = results.filter((r) => r !== "hello kept");
  assert.ok(refused.length >= 1, "nothing was refused");
  assert.deepEqual(
    new Set(refused),
    new Set([
      `lua_unavailable: ${MAX_WAITING_CALLS} calls are already waiting for this Lua VM; try again when it is less busy`,
    ]),
  );
  assert.equal(await running, "lua_timeout");
});

test("close stops a running call at once and refuses later ones", async () => {
  const temp = await LuaVM.create({ kind: "adapter", timeoutMs: 60_000 });
  await temp.loadScript("spin", "return { spin = function() while true do end end }");
  const events: string[] = [];
  const call = temp.call("spin", "spin").catch((err: LuaError) => {
    events.push("call failed");
    return err;
  });
  await temp.close();
  events.push("closed");
  const err = await call;
  assert.deepEqual(events, ["call failed", "closed"]);
  assert.ok(err instanceof LuaError && err.code === "lua_unavailable");
  assert.equal(err.message, "lua: adapter spin: the Lua VM is closed");
  await assert.rejects(temp.call("spin", "spin"), /the Lua VM is closed/);
});

test("a VM that is never closed does not keep the process alive", async () => {
  const vmModule = entryPath("src/lua/vm.ts");
  const program = `import { LuaVM } from ${JSON.stringify(vmModule)};
    const vm = await LuaVM.create();
    console.log(await vm.loadScript("x", "return 'loaded'"));`;
  const child = spawn(process.execPath, [...NODE_FLAGS, "--input-type=module", "-e", program], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    child.on("exit", (c, s) => resolve([c, s])),
  );
  clearTimeout(killer);
  assert.equal(signal, null, "the process had to be killed: something kept it alive");
  assert.equal(code, 0);
  assert.equal(out.trim(), "loaded");
});

test("a script that cannot be loaded again into the new worker is reported as lost, the others go on", async () => {
  let status = 200;
  const server = createServer((_, res) => {
    res.writeHead(status);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const temp = await LuaVM.create({ kind: "plugin", timeoutMs: LIMIT_MS, httpAllowedHosts: [host] });
  try {
    const flaky = `local _, status = http_get("http://${host}/")
      if status ~= 200 then error("the server said " .. status) end
      return { ping = function() return "pong" end }`;
    await temp.loadScript("flaky", flaky);
    await temp.loadScript("hostile", HOSTILE);
    status = 500;
    await assert.rejects(temp.call("hostile", "attack", ["find"]), /exceeded 300 ms/);
    const lost = await temp.call("flaky", "ping").catch((e: unknown) => e);
    assert.ok(lost instanceof LuaError && lost.code === "lua_worker", String(lost));
    assert.match(
      lost.message,
      /^lua: plugin flaky: was lost when its Lua worker was restarted \(.*the server said 500\); load it again$/,
    );
    await assert.rejects(
      temp.call("hostile", "attack", ["loop"]),
      /exceeded 300 ms/,
      "the other script is still there",
    );
    status = 200;
    await temp.loadScript("flaky", flaky);
    assert.equal(await temp.call("flaky", "ping"), "pong");
  } finally {
    await temp.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("a batch whose worker is terminated still names the call that ran away", async () => {
  const calls = [
    { fn: "attack", args: ["none"] },
    { fn: "attack", args: ["find"] },
  ];
  await vm.loadScript("hostile-batch", HOSTILE.replace("attacks[name]()", "if attacks[name] then attacks[name]() end"));
  const err = await vm.callEach("hostile-batch", calls).catch((e: unknown) => e);
  assert.ok(err instanceof LuaError && err.timedOut, String(err));
  assert.equal(err.callIndex, 1);
});
