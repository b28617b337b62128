/**
 * The proc host with real child processes (the hand-written protocol fixtures) and a real Agent: launch,
 * each way a launch fails, crashes and exits (also hidden behind a grandchild holding stdout; grandchildren
 * that left its process group die with it), stop with
 * its grace period, and children dying with a daemon killed by SIGKILL.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { test } from "node:test";
import type { ToolContext } from "@homeagent/sdk";
import { nodeArgs } from "../../../test/fixtures/node-entry.js";
import { testPluginHost } from "../../../test/fixtures/plugin-host.js";
import { FIXTURE_PLUGINS, fixtureRun, launchFixture, processAlive } from "../../../test/fixtures/proc-plugins.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { PluginLaunchError } from "./errors.js";
import { PluginProcess } from "./plugin-process.js";
import { setprivPath } from "./spawn.js";

function toolContext(signal = new AbortController().signal): ToolContext {
  return { requestId: "req-1", source: "cli", channel: "cli", signal };
}

async function launchFails(run: ReturnType<typeof fixtureRun>): Promise<PluginLaunchError> {
  try {
    await PluginProcess.launch(run.options);
  } catch (err) {
    assert.ok(err instanceof PluginLaunchError, `a PluginLaunchError, not ${err}`);
    return err;
  } finally {
    await run.close();
  }
  assert.fail("the launch succeeded");
}

test("a raw protocol plugin is launched; its tool is callable through agent.tools and in a turn", async () => {
  const run = await launchFixture("raw-probe");
  const { agent, llm } = run.host.harness;
  try {
    assert.ok(run.proc.pid > 0);
    assert.equal(run.proc.sdkVersion, "raw-fixture");
    assert.ok(agent.tools.names().includes("echo"));
    const out = await agent.tools.execute({ id: "c1", name: "echo", arguments: { text: "hi" } }, toolContext());
    assert.deepEqual(out, { status: "ok", content: "echo: hi" });

    llm.enqueue({ toolCalls: [{ name: "echo", arguments: { text: "from the model" } }] }, { text: "done" });
    const reply = await agent.injectInputSync("cli", "cli", "echo something");
    assert.equal(reply.content, "done");
    const toolMessage = llm.requests[1].messages.find((m) => m.role === "tool");
    assert.equal(toolMessage?.content, "echo: from the model");

    const init = await agent.tools.execute({ id: "c2", name: "probe", arguments: { what: "init" } }, toolContext());
    const seen = JSON.parse(init.content);
    assert.equal(seen.name, "raw-probe");
    assert.deepEqual(seen.capabilities, ["core"]);
    assert.equal(seen.dataDir, run.binding.sdk.dataDir);
    assert.deepEqual(seen.settings, {});

    const proc = await agent.tools.execute({ id: "c3", name: "probe", arguments: { what: "process" } }, toolContext());
    assert.deepEqual(JSON.parse(proc.content), {
      cwd: join(FIXTURE_PLUGINS, "raw-probe"),
      plugin: "raw-probe",
      data: run.host.host.dataDir,
    });
  } finally {
    await run.close(run.proc);
  }
  assert.deepEqual(
    run.exits.map((e) => [e.code, e.expected]),
    [[0, true]],
  );
});

/**
 * A plugin that says it reads attachments and tells on stderr what it was offered and which headers came
 * (one attachment, at params.args.text, is all it needs to understand); its tool `size` counts the text.
 */
const ATTACHMENT_PROBE = `
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
let buf = Buffer.alloc(0), header, held, starting;
process.stdin.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    if (held) {
      if (buf.length < header[0].bytes) return;
      held.params.args.text = buf.subarray(0, header[0].bytes).toString();
      buf = buf.subarray(header[0].bytes);
      const msg = held;
      held = header = undefined;
      serve(msg);
      continue;
    }
    const nl = buf.indexOf(10);
    if (nl < 0) return;
    const line = buf.subarray(0, nl).toString();
    buf = buf.subarray(nl + 1);
    if (line.startsWith("@")) console.error("header " + line), (header = JSON.parse(line.slice(1)));
    else if (header) held = JSON.parse(line);
    else serve(JSON.parse(line));
  }
});
function serve(msg) {
  if (msg.method === "handshake") {
    console.error("offered " + msg.params.attachments);
    send({ id: msg.id, result: { protocol: 1, pluginName: msg.params.pluginName, pid: process.pid, attachments: true } });
  } else if (msg.method === "plugin.start") {
    starting = msg.id;
    send({ id: 1, method: "core.registerTool", params: [{ name: "size", parameters: { type: "object" } }] });
  } else if (msg.method === undefined) send({ id: starting, result: {} });
  else if (msg.method === "tool.invoke") send({ id: msg.id, result: { result: msg.params.args.text.length } });
  else send({ id: msg.id, result: {} });
}`;

test("the daemon offers attachments in the handshake and sends long strings as such to a plugin that reads them", async () => {
  const run = await launchFixture("raw-probe", { command: process.execPath, args: ["-e", ATTACHMENT_PROBE] });
  try {
    const text = "é".repeat(50_000);
    const out = await run.host.harness.agent.tools.execute(
      { id: "c1", name: "size", arguments: { text } },
      toolContext(),
    );
    assert.deepEqual(out, { status: "ok", content: "50000" });
    await waitFor(() => run.logs.some((l) => l.includes("header @")), "the header on the plugin's stderr");
    assert.ok(run.logs.includes("info [stderr] offered true"), run.logs.join("\n"));
    assert.ok(run.logs.includes('info [stderr] header @[{"path":["params","args","text"],"bytes":100000}]'));
  } finally {
    await run.close(run.proc);
  }
});

test("plugin.init carries the plugin's own settings", async () => {
  const first = fixtureRun("raw-probe");
  first.binding.sdk.settings.set("greeting", "hello");
  const run = await launchFixture("raw-probe", { host: first.host });
  try {
    const init = await run.host.harness.agent.tools.execute(
      { id: "c1", name: "probe", arguments: { what: "init" } },
      toolContext(),
    );
    assert.deepEqual(JSON.parse(init.content).settings, { greeting: "hello" });
  } finally {
    await run.close(run.proc);
    await first.close();
  }
});

test("a plugin that never answers the handshake fails with a clear error and is killed", async () => {
  const run = fixtureRun("hang", { handshakeTimeoutMs: 1000 });
  const started = Date.now();
  const err = await launchFails(run);
  assert.equal(err.code, "plugin_handshake_timeout");
  assert.equal(err.step, "handshake");
  assert.match(err.message, /plugin "hang" failed to load \(handshake\): no answer to the handshake within 1000 ms/);
  assert.match(err.message, /docs\/plugin-protocol\.md/);
  assert.match(err.message, /hang fixture \d+: will not answer handshake/, "the stderr tail is in the message");
  assert.ok(Date.now() - started < 3000);
  const pid = Number(/hang fixture (\d+)/.exec(err.stderrTail)?.[1]);
  assert.equal(processAlive(pid), false, "the child was killed");
  assert.deepEqual(run.exits, [], "a failed launch rejects instead of reporting an exit");
});

test("a plugin.start that does not answer in time fails the launch at the start step", async () => {
  const err = await launchFails(fixtureRun("hang", { args: ["start"], startTimeoutMs: 300 }));
  assert.equal(err.code, "plugin_start_timeout");
  assert.match(err.message, /no answer to plugin\.start within 300 ms \(it must answer once it has registered/);
});

test("a plugin speaking another protocol version is refused: rebuild with a matching hmapdev", async () => {
  const err = await launchFails(fixtureRun("bad-protocol"));
  assert.equal(err.code, "plugin_protocol_mismatch");
  assert.match(
    err.message,
    /plugin "bad-protocol" speaks plugin protocol 99 but homed speaks 1: rebuild with a matching hmapdev \(or @homeagent\/sdk\)/,
  );
  assert.match(err.message, /answering the handshake with protocol 99/);
});

test("a plugin answering the handshake under another name is refused", async () => {
  const err = await launchFails(fixtureRun("bad-protocol", { args: ["wrong-name"] }));
  assert.equal(err.code, "plugin_name_mismatch");
  assert.match(err.message, /it calls itself "someone-else": the name in plugin\.json and the plugin's own name/);
});

test("an entry that cannot be run fails at the handshake, saying why", async () => {
  const run = fixtureRun("crash", { command: join(FIXTURE_PLUGINS, "crash", "plugin.json") });
  const err = await launchFails(run);
  assert.equal(err.code, "plugin_handshake_failed");
  assert.match(err.message, /handshake failed: the plugin (exited \(code 126\)|could not be started: spawn EACCES)/);
  assert.match(err.message, /EACCES|Permission denied/, "with the reason");
});

test("a crash mid-call fails the pending call at once; onExit sees the code and the stderr tail", async () => {
  const run = await launchFixture("crash");
  const { agent } = run.host.harness;
  try {
    const started = Date.now();
    const out = await agent.tools.execute({ id: "c1", name: "crash", arguments: {} }, toolContext());
    assert.ok(Date.now() - started < 2000, "not left to its deadline");
    assert.equal(out.status, "error");
    assert.match(out.content, /plugin "crash" exited \(code 7\)/);
    await waitFor(() => run.exits.length === 1, "onExit");
    const [exit] = run.exits;
    assert.equal(exit.code, 7);
    assert.equal(exit.signal, null);
    assert.equal(exit.expected, false);
    assert.match(exit.stderrTail, /crash fixture: giving up on purpose/);
    assert.ok(run.logs.includes("info [stderr] crash fixture: giving up on purpose"), "stderr reached the log");
    const later = await agent.tools.execute({ id: "c2", name: "echo", arguments: { text: "x" } }, toolContext());
    assert.match(later.content, /plugin "crash" exited \(code 7\)/, "a later call fails at once too");
    assert.equal(run.proc.running, false);
  } finally {
    await run.close(run.proc);
  }
});

test("a grandchild holding stdout open does not hide the exit; it is killed with its parent", async () => {
  const run = await launchFixture("grandchild");
  try {
    const out = await run.host.harness.agent.tools.execute({ id: "c1", name: "leave", arguments: {} }, toolContext());
    assert.match(out.content, /plugin "grandchild" exited \(code 5\)/);
    await waitFor(() => run.exits.length === 1, "onExit although stdout is still open");
    assert.equal(run.exits[0].code, 5);
    const grandchild = Number(/grandchild (\d+)/.exec(run.exits[0].stderrTail)?.[1]);
    assert.ok(grandchild > 0, `the grandchild's pid in ${JSON.stringify(run.exits[0].stderrTail)}`);
    await waitFor(() => !processAlive(grandchild), "the grandchild to be killed");
  } finally {
    await run.close(run.proc);
  }
});

test("a grandchild that left the process group (setsid) dies at its plugin's crash; another plugin's lives", {
  skip: process.platform !== "linux",
}, async () => {
  const run = await launchFixture("grandchild");
  // Another plugin of the same name on the same data directory: only the crashed run's own tree may go.
  const otherHost = testPluginHost();
  otherHost.host.dataDir = run.host.host.dataDir;
  const other = await launchFixture("grandchild", { host: otherHost });
  let kept = 0;
  let escaped = 0;
  try {
    const forked = await other.host.harness.agent.tools.execute(
      { id: "f1", name: "fork", arguments: { session: true } },
      toolContext(),
    );
    kept = Number(forked.content);
    assert.ok(kept > 0, `the other plugin's grandchild pid, got ${forked.content}`);
    const out = await run.host.harness.agent.tools.execute({ id: "c1", name: "escape", arguments: {} }, toolContext());
    assert.match(out.content, /plugin "grandchild" exited \(code 6\)/);
    await waitFor(() => run.exits.length === 1, "onExit");
    escaped = Number(/escaped (\d+)/.exec(run.exits[0].stderrTail)?.[1]);
    assert.ok(escaped > 0, `the escaped grandchild's pid in ${JSON.stringify(run.exits[0].stderrTail)}`);
    await waitFor(() => !processAlive(escaped), "the setsid grandchild to be killed");
    assert.ok(
      run.logs.some((l) => l.includes(`outside its process group (pids ${escaped})`)),
      run.logs.join("\n"),
    );
    assert.ok(processAlive(kept), "the other plugin's grandchild lives");
    assert.ok(processAlive(other.proc.pid), "the other plugin lives");
    assert.ok(processAlive(process.pid));
  } finally {
    for (const pid of [kept, escaped]) if (pid > 0 && processAlive(pid)) process.kill(pid, "SIGKILL");
    await other.close(other.proc);
    await otherHost.close();
    await run.close(run.proc);
  }
});

test("stop(): a plugin that ignores plugin.stop is killed after the grace period", async () => {
  const run = await launchFixture("stdin-ignoring");
  const started = Date.now();
  await run.proc.stop(300);
  const took = Date.now() - started;
  assert.ok(took >= 250 && took < 3000, `stopped after the grace period (${took} ms)`);
  assert.equal(processAlive(run.proc.pid), false);
  await waitFor(() => run.exits.length === 1, "onExit");
  assert.equal(run.exits[0].signal, "SIGKILL");
  assert.equal(run.exits[0].expected, true, "stop() asked for it");
  assert.ok(run.logs.some((l) => /did not exit within 300 ms of plugin\.stop; killed/.test(l)));
  await run.close();
});

test("kill(): the exit is reported as unexpected", async () => {
  const run = await launchFixture("crash");
  run.proc.kill();
  await waitFor(() => run.exits.length === 1, "onExit");
  assert.deepEqual([run.exits[0].signal, run.exits[0].expected], ["SIGKILL", false]);
  await run.close(run.proc);
});

test("a child hung and not reading stdin dies with a daemon killed by SIGKILL", { skip: !setprivPath() }, async () => {
  const host = spawn(process.execPath, nodeArgs("test/fixtures/proc-orphan-host.ts"), {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [line] = (await once(host.stdout, "data")) as [Buffer];
    const pid = Number(line.toString().trim());
    assert.ok(pid > 0, `the host printed the plugin's pid, got ${JSON.stringify(line.toString())}`);
    assert.equal(processAlive(pid), true);
    host.kill("SIGKILL");
    await once(host, "exit");
    await waitFor(() => !processAlive(pid), `plugin process ${pid} to die with its daemon`, { timeoutMs: 5000 });
  } finally {
    host.kill("SIGKILL");
  }
});
