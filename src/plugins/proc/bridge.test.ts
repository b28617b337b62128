/**
 * The core.* bridge and the daemon → plugin calls, driven by real hand-written protocol plugins on a real
 * Agent: what a plugin registers works as it would in-process (tools with cleaners, stages, channels,
 * subscriptions), capabilities are refused by name, bad params and unknown methods get their JSON-RPC
 * errors, and oversized or malformed frames cost only themselves, never the connection.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ToolContext } from "@homeagent/sdk";
import { type FixtureRun, launchFixture } from "../../../test/fixtures/proc-plugins.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import type { PluginProcess } from "./plugin-process.js";

type Run = FixtureRun & { proc: PluginProcess };

function toolContext(signal = new AbortController().signal): ToolContext {
  return { requestId: "req-1", source: "cli", channel: "cli", signal };
}

async function tool(run: Run, name: string, args: Record<string, unknown> = {}, ctx = toolContext()) {
  return run.host.harness.agent.tools.execute({ id: `call-${name}`, name, arguments: args }, ctx);
}

/** Makes the raw-probe fixture call `method` with `params`; what the daemon answered. */
async function core(run: Run, method: string, params: unknown) {
  const out = await tool(run, "probe", { method, params });
  assert.equal(out.status, "ok", out.content);
  return JSON.parse(out.content) as {
    ok: boolean;
    value?: unknown;
    error?: { code: number; message: string; data?: { code?: string } };
  };
}

let probe: Run;
before(async () => {
  probe = await launchFixture("raw-probe", { capabilities: ["events", "io"], callTimeoutMs: () => 1234 });
});
after(() => probe.close(probe.proc));

test("generic core.* calls go through the plugin's SDK", async () => {
  assert.deepEqual(await core(probe, "core.settings.set", ["colour", "blue"]), { ok: true, value: null });
  assert.deepEqual(await core(probe, "core.settings.get", ["colour"]), { ok: true, value: "blue" });
  assert.equal(probe.binding.sdk.settings.get("colour"), "blue", "in the plugin's own namespace");
  assert.deepEqual(await core(probe, "core.setAutoRestart", [false]), { ok: true, value: null });
  assert.equal(probe.proc.autoRestart, false);
  await core(probe, "core.setAutoRestart", [true]);
});

test("a tool registered over the wire can be unregistered again, once; the kernel's list follows", async () => {
  const names = () => probe.host.harness.agent.tools.names();
  assert.deepEqual(await core(probe, "core.registerTool", [{ name: "passing", parameters: { type: "object" } }]), {
    ok: true,
    value: null,
  });
  assert.ok(names().includes("passing"));
  assert.deepEqual(await core(probe, "core.unregisterTool", ["passing"]), { ok: true, value: true });
  assert.deepEqual(await core(probe, "core.unregisterTool", ["passing"]), { ok: true, value: false });
  assert.ok(!names().includes("passing"));
  const tools = await core(probe, "core.kernel.tools", []);
  assert.equal(tools.error?.data?.code, "capability_denied", "kernel.tools needs kernel_status");
});

test("a plugin can talk to the agent (io): inject options are checked, the reply comes back", async () => {
  probe.host.harness.llm.enqueue({ text: "hello, plugin" });
  const answer = await core(probe, "core.injectInputSync", ["probe", "probe", "hi from a plugin", { userId: "u1" }]);
  assert.equal(answer.ok, true);
  assert.equal((answer.value as { content: string }).content, "hello, plugin");
  const bad = await core(probe, "core.injectInputSync", ["probe", "probe", "hi", { signal: "x", userId: 5 }]);
  assert.equal(bad.error?.code, -32602);
  assert.match(bad.error?.message ?? "", /userId must be a string, got a number/);
});

test("a call outside the plugin's capabilities is refused naming the method and the capability", async () => {
  const answer = await core(probe, "core.kernel.status", []);
  assert.equal(answer.ok, false);
  assert.equal(answer.error?.code, -32000);
  assert.equal(answer.error?.data?.code, "capability_denied");
  assert.match(
    answer.error?.message ?? "",
    /plugin "raw-probe" may not call kernel\.status: it needs the "kernel_status" capability/,
  );
});

test("publish is for built-in plugins; embedding providers and in-process members do not cross the wire", async () => {
  const publish = await core(probe, "core.publish", ["system", { kind: "fake" }]);
  assert.equal(publish.error?.data?.code, "capability_denied");
  assert.match(publish.error?.message ?? "", /may not call publish: only built-in plugins may/);
  const embed = await core(probe, "core.registerEmbeddingProvider", ["mine", {}]);
  assert.equal(embed.error?.code, -32601);
  assert.match(embed.error?.message ?? "", /core\.registerEmbeddingProvider is not available to subprocess plugins/);
  const name = await core(probe, "core.pluginName", []);
  assert.match(name.error?.message ?? "", /core\.pluginName .*given in plugin\.init/);
});

test("unknown methods answer -32601 naming the method", async () => {
  for (const method of ["core.nope", "core.memory.nope", "core.toString", "plugin.hack"]) {
    const answer = await core(probe, method, []);
    assert.equal(answer.error?.code, -32601, method);
    assert.match(answer.error?.message ?? "", new RegExp(`unknown method "${method.replace(".", "\\.")}"`));
  }
});

test("params of the wrong shape answer -32602 naming what is wrong", async () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["core.settings.get", "colour", /params must be an array of the method's arguments, got a string/],
    ["core.settings.get", [5], /core\.settings\.get: argument 1 must be a string, got a number/],
    ["core.settings.get", [], /argument 1 \(a string\) is missing/],
    ["core.settings.get", ["a", "b"], /takes at most 1 argument\(s\), got 2/],
    ["core.registerTool", [{ name: 5 }], /core\.registerTool: name must be a string, got a number/],
    ["core.registerTool", [{ name: "t1", cleaner: "yes" }], /cleaner must be true/],
    ["core.registerStage", ["pre_action", "everywhere"], /scope must be "global" or "own_tools"/],
    ["core.subscribe", ["no_such_event", "s1"], /unknown event type "no_such_event"/],
    ["core.unsubscribe", [{}], /argument 1 must be a string or an integer, got an object/],
  ];
  for (const [method, params, message] of cases) {
    const answer = await core(probe, method, params);
    assert.equal(answer.error?.code, -32602, `${method} ${JSON.stringify(params)}`);
    assert.match(answer.error?.message ?? "", message);
  }
});

test("tool.invoke carries the request and the deadline; the tool's cleaner runs in the plugin", async () => {
  const deadline = JSON.parse((await tool(probe, "probe", { what: "deadline" })).content);
  assert.deepEqual(deadline, { deadlineMs: 1234, requestId: "req-1" });

  const { agent, llm, context } = probe.host.harness;
  llm.enqueue({ toolCalls: [{ name: "probe_html" }] }, { text: "ok" });
  await agent.injectInputSync("cli", "cli", "clean it");
  const event = (await context.window()).at(-1);
  assert.deepEqual(event?.toolResults, [{ name: "probe_html", content: "<b>bold</b>", clean: "BOLD" }]);
});

test("an input channel's cleaner runs in the plugin", async () => {
  const { agent, context } = probe.host.harness;
  await agent.injectInputSync("probe-in", "probe-in", "<i>hey</i> there");
  const event = (await context.window()).at(-1);
  assert.equal(event?.input, "<i>hey</i> there");
  assert.equal(event?.cleanInput, "HEY THERE");
  const cleaned = JSON.parse((await tool(probe, "probe", { what: "cleaned" })).content);
  assert.ok(cleaned.some((c: { scope: string; name: string }) => c.scope === "input" && c.name === "probe-in"));
});

test("a stage handler in the plugin gets a snapshot and its patch is applied", async () => {
  const { agent, llm } = probe.host.harness;
  let seen: unknown;
  const off = agent.stages.register("test", "post_action", (ctx) => {
    seen = ctx.extra["probe-stage"];
  });
  try {
    llm.enqueue({ text: "fine" });
    await agent.injectInputSync("cli", "cli", "stage me");
    assert.equal(seen, "stage me");
  } finally {
    off();
  }
});

test("an output channel's sends go to output.invoke and return its result", async () => {
  const out = await tool(probe, "output_send__probe-out", { payload: "hello out there" });
  assert.equal(out.status, "ok");
  assert.deepEqual(JSON.parse(out.content), { status: "sent", echoed: "hello out there" });
});

test("subscriptions deliver events as event.deliver notifications until unsubscribed", async () => {
  const { bus } = probe.host.harness.agent;
  assert.deepEqual(await core(probe, "core.subscribe", ["system", "sys"]), { ok: true, value: null });
  const taken = await core(probe, "core.subscribe", ["system", "sys"]);
  assert.match(taken.error?.message ?? "", /subscription id "sys" is in use/);
  bus.publish("system", "kernel", { kind: "probe_test", n: 1 });
  const delivered = async () => JSON.parse((await tool(probe, "probe", { what: "events" })).content);
  await waitFor(async () => (await delivered()).length === 1, "the event to be delivered");
  const [first] = await delivered();
  assert.equal(first.subscription, "sys");
  assert.equal(first.event.type, "system");
  assert.deepEqual(first.event.payload, { kind: "probe_test", n: 1 });
  assert.deepEqual(await core(probe, "core.unsubscribe", ["sys"]), { ok: true, value: true });
  bus.publish("system", "kernel", { kind: "probe_test", n: 2 });
  assert.deepEqual(await core(probe, "core.unsubscribe", ["sys"]), { ok: true, value: false });
  assert.equal((await delivered()).length, 1, "nothing after unsubscribe");
});

test("a tool call whose signal fires is answered at once and the plugin is sent $/cancel", async () => {
  const stop = new AbortController();
  // The request is written before tool() returns its promise, so the plugin is working on it now.
  const call = tool(probe, "probe", { what: "slow" }, toolContext(stop.signal));
  stop.abort(new Error("user pressed stop"));
  const out = await call;
  assert.equal(out.status, "error");
  await waitFor(
    async () => JSON.parse((await tool(probe, "probe", { what: "cancelled" })).content).length === 1,
    "the plugin to hear of the cancel",
  );
});

test("a plugin that does not read its input loses events instead of blocking the bus", async () => {
  const run = await launchFixture("stdin-ignoring", { capabilities: ["events"] });
  try {
    await waitFor(() => run.logs.some((l) => l.includes("not reading any more")), "the plugin to stop reading");
    const payload = { kind: "bulk", text: "z".repeat(256 * 1024) };
    const started = Date.now();
    for (let i = 0; i < 40 && run.proc.droppedEvents === 0; i++)
      run.host.harness.agent.bus.publish("system", "kernel", payload);
    assert.ok(run.proc.droppedEvents > 0, "events were dropped");
    assert.ok(Date.now() - started < 2000, "publishing never waited for the plugin");
    assert.ok(
      run.logs.some((l) => /plugin "stdin-ignoring" is not reading its input: events for it are dropped/.test(l)),
    );
  } finally {
    run.proc.kill();
    await run.close(run.proc);
  }
});

test("a capability violator is refused by name and keeps running", async () => {
  const run = await launchFixture("capability-violator");
  try {
    const out = await tool(run, "peek");
    const { refused } = JSON.parse(out.content);
    assert.equal(refused.code, -32000);
    assert.equal(refused.data.code, "capability_denied");
    assert.match(
      refused.message,
      /plugin "capability-violator" may not call memory\.recall: it needs the "memory" capability/,
    );
    assert.deepEqual(await tool(run, "echo", { text: "still here" }), { status: "ok", content: "echo: still here" });
    assert.equal(run.proc.running, true);
  } finally {
    await run.close(run.proc);
  }
});

test("oversized frames fail only themselves; malformed lines are logged and skipped", async () => {
  const run = await launchFixture("oversized");
  try {
    const big = await tool(run, "big");
    assert.equal(big.status, "error");
    assert.match(
      big.content,
      /the answer to tool\.invoke was too large: a \d+-byte line \(over the 1048576-byte frame limit\)/,
    );
    assert.deepEqual(await tool(run, "echo", { text: "after big" }), { status: "ok", content: "echo: after big" });

    const { refused } = JSON.parse((await tool(run, "shout")).content);
    assert.equal(refused.code, -32001, "the plugin's 2 MiB request was answered with frame too large");
    assert.match(refused.message, /send less/);
    assert.deepEqual(await tool(run, "echo", { text: "after shout" }), { status: "ok", content: "echo: after shout" });

    assert.deepEqual(await tool(run, "garble"), { status: "ok", content: "still here" });
    const protocol = run.logs.filter((l) => l.startsWith('warn plugin "oversized" protocol error:'));
    assert.ok(
      protocol.some((l) => l.includes("skipped a line that is not JSON: this is not json")),
      protocol.join("\n"),
    );
    assert.ok(protocol.some((l) => l.includes("not a JSON-RPC object: [1, 2, 3]")));
    assert.ok(protocol.some((l) => l.includes('without "jsonrpc":"2.0"')));
    assert.equal(run.proc.running, true);
  } finally {
    await run.close(run.proc);
  }
});

type Outcome = { ok: boolean; error?: { code: number; message: string; data?: { code?: string } } };

/** Makes the raw-probe fixture call each of `calls` in a row; every outcome. */
async function coreCalls(run: Run, calls: Array<{ method: string; params: unknown }>): Promise<Outcome[]> {
  const out = await tool(run, "probe", { calls });
  assert.equal(out.status, "ok", out.content);
  return JSON.parse(out.content);
}

/** The outcomes are `ok` successes, then one refusal with `code` (and `data.code`) matching `message`. */
function stopsAt(outcomes: Outcome[], ok: number, code: number, dataCode: string, message: RegExp): void {
  assert.equal(outcomes.length, ok + 1);
  assert.deepEqual(
    outcomes.slice(0, ok).filter((o) => !o.ok),
    [],
  );
  const last = outcomes[ok];
  assert.equal(last.ok, false);
  assert.equal(last.error?.code, code);
  assert.equal(last.error?.data?.code, dataCode);
  assert.match(last.error?.message ?? "", message);
}

const repeat = (n: number, method: string, params: (i: number) => unknown) =>
  Array.from({ length: n }, (_, i) => ({ method, params: params(i) }));

test("a plugin's registrations stop at their limits, each named; a stage handler id is not taken twice", async () => {
  // raw-probe registers 3 tools, 1 stage handler, 1 output and 1 input channel as it starts.
  const run = await launchFixture("raw-probe");
  try {
    const tools = repeat(126, "core.registerTool", (i) => [{ name: `many_${i}`, parameters: { type: "object" } }]);
    stopsAt(await coreCalls(run, tools), 125, -32000, "plugin_limit", /already registered 128 tools.*tools = 128/);
    const duplicate = await core(run, "core.registerStage", ["pre_action", "global", "probe-stage"]);
    assert.equal(duplicate.error?.code, -32602);
    assert.match(duplicate.error?.message ?? "", /handler id "probe-stage" is already registered for pre_action/);
    const stages = repeat(64, "core.registerStage", (i) => ["pre_action", "global", `h${i}`]);
    stopsAt(await coreCalls(run, stages), 63, -32000, "plugin_limit", /64 stage handlers.*stageHandlers = 64/);
    assert.equal(run.host.harness.agent.stages.count("pre_action"), 64);
    const outputs = repeat(32, "core.registerOutputChannel", (i) => [`out${i}`, ["text"], "d"]);
    stopsAt(await coreCalls(run, outputs), 31, -32000, "plugin_limit", /32 output channels.*outputChannels = 32/);
    const inputs = repeat(32, "core.registerInputChannel", (i) => [`in${i}`]);
    stopsAt(await coreCalls(run, inputs), 31, -32000, "plugin_limit", /32 input channels.*inputChannels = 32/);
  } finally {
    await run.close(run.proc);
  }
});

test("params nested 100,000 deep are refused with -32602 before anything walks them; turns keep working", async () => {
  const run = await launchFixture("raw-probe");
  try {
    const depth = 100_000;
    const rawParams = `[{"name":"innocent","description":"d","parameters":{"type":"object","x":${"[".repeat(depth)}${"]".repeat(depth)}}}]`;
    const deep = JSON.parse((await tool(run, "probe", { method: "core.registerTool", rawParams })).content);
    assert.equal(deep.error?.code, -32602);
    assert.match(deep.error?.message ?? "", /core\.registerTool: params nest deeper than 64 levels/);

    const schema = `{"type":"object","x":${"[".repeat(40)}${"]".repeat(40)}}`;
    const tooDeep = JSON.parse(
      (
        await tool(run, "probe", {
          method: "core.registerTool",
          rawParams: `[{"name":"nested","parameters":${schema}}]`,
        })
      ).content,
    );
    assert.equal(tooDeep.error?.data?.code, "plugin_limit");
    assert.match(tooDeep.error?.message ?? "", /tool "nested": its parameters nest deeper than 32 levels/);
    const wordy = await core(run, "core.registerTool", [{ name: "wordy", description: "w".repeat(5000) }]);
    assert.match(wordy.error?.message ?? "", /tool "wordy" description is 5000 characters, over the 4096-character/);
    const names = run.host.harness.agent.tools.names();
    assert.ok(!names.includes("innocent") && !names.includes("nested") && !names.includes("wordy"));

    const answer = await tool(run, "probe", { what: "deep", depth });
    assert.equal(answer.status, "error");
    assert.match(answer.content, /tool\.invoke.*answered with a value nested deeper than 64 levels/);

    run.host.harness.llm.enqueue({ text: "turns still work" });
    const reply = await run.host.harness.agent.injectInputSync("cli", "cli", "hello");
    assert.equal(reply.content, "turns still work");
  } finally {
    await run.close(run.proc);
  }
});

test("log floods: a core.log message is cut at 4 KiB; core.log and stderr share a rate, and the flood is summed up", async () => {
  // The flood is summed up once it has been over for logQuietMs: shrunk from 1 s, the rate is the real one.
  const run = await launchFixture("raw-probe", { logQuietMs: 50 });
  try {
    await core(run, "core.log.warn", [`big ${"x".repeat(900_000)}`]);
    const big = run.logs.find((l) => l.startsWith("warn big "));
    assert.ok(big, "the big message is logged");
    assert.ok(big.length < 4200, `cut to 4 KiB, got ${big.length} characters`);
    assert.ok(big.endsWith(`… [${900_004 - 4096} more characters]`), big.slice(-60));

    const lines = 1000;
    assert.deepEqual(await tool(run, "probe", { flood: lines, text: "zzz" }), { status: "ok", content: "flooded" });
    const logged = () => run.logs.filter((l) => /zzz (log|stderr) \d+$/.test(l)).length;
    const suppressed = () =>
      run.logs
        .map((l) => /^warn (\d+) lines from plugin "raw-probe" suppressed/.exec(l)?.[1])
        .reduce((sum, n) => sum + Number(n ?? 0), 0);
    await waitFor(() => logged() + suppressed() === 2 * lines, "every flood line logged or counted as suppressed");
    assert.ok(logged() < 500, `the rate held: ${logged()} of ${2 * lines} lines logged`);
    assert.match(
      run.logs.find((l) => / suppressed/.test(l)) ?? "",
      /more than 100 lines\/s \(core\.log and stderr together\)/,
    );
  } finally {
    await run.close(run.proc);
  }
});
