/**
 * A subprocess plugin in a real `homed`: echo-ts installed as `<data>/plugins/echo-ts/plugin.js` is found
 * and started; the fake LLM calls its tool and the reply uses the result; killed with SIGKILL, it is
 * restarted, and the next message calls it again. A plugin.bin (echo-py) runs under a real homed too.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { CliLines, type HomedProcess, startHomedOn } from "./fixtures/homed-process.js";
import { installFixturePlugin } from "./fixtures/plugins.js";
import { tempDir } from "./fixtures/temp-dir.js";
import { waitFor } from "./fixtures/wait.js";

let fake: FakeLLM;
let homed: HomedProcess;
let cli: CliLines;

before(async () => {
  const dir = tempDir("ha-plugin-e2e-");
  installFixturePlugin(dir, "echo-ts");
  fake = await startFakeLLM();
  homed = await startHomedOn(dir, { HOMEAGENT_LLM_BASE_URL: fake.url, HOMEAGENT_LLM_MODEL: "fake-model" });
  cli = await CliLines.open(homed.socket);
});

after(async () => {
  cli?.close();
  await homed?.stop();
  await fake?.close();
});

/** The echo-ts line of `/plugins`: its state and pid. */
async function echoPlugin(): Promise<{ state: string; pid: number | undefined; line: string }> {
  const text = await cli.text("/plugins");
  const line = text.split("\n").find((l) => l.startsWith("echo-ts ")) ?? "";
  const pid = /pid (\d+)/.exec(line)?.[1];
  return { state: /\]: (\w+)/.exec(line)?.[1] ?? "", pid: pid ? Number(pid) : undefined, line };
}

/** One message whose model round calls echo; returns the reply and what the tool sent back to the model. */
async function askEcho(text: string): Promise<{ reply: string; toolResult: unknown }> {
  const before = fake.requests.length;
  fake.enqueue({ toolCalls: [{ name: "echo", arguments: { text } }] }, { text: `the plugin said: ${text}` });
  const reply = await cli.text(`please echo ${text}`, 20_000);
  const chats = fake.requests.slice(before).filter((r) => r.method === "POST");
  const body = chats[1]?.body as { messages: Array<{ role: string; content: unknown }> } | undefined;
  const messages = body?.messages ?? [];
  return { reply, toolResult: messages.find((m) => m.role === "tool")?.content };
}

test("homed loads a plugin.js from <data>/plugins, the model calls its tool, the reply uses the result", async () => {
  const plugin = await echoPlugin();
  assert.equal(plugin.state, "running", plugin.line);
  assert.match(plugin.line, /\[js 0\.1\.0\]/);
  assert.ok(plugin.pid && plugin.pid !== homed.proc.pid, plugin.line);
  // sdk.log in the subprocess arrives as a notification and lands in the daemon's log under the plugin's name.
  assert.match(homed.stderr(), /echo-ts.*echo-ts started: 你好/);
  const first = await askEcho("héllo 你好");
  assert.equal(first.toolResult, "héllo 你好");
  assert.equal(first.reply, "the plugin said: héllo 你好");
});

test("a plugin killed with SIGKILL is restarted and the next message calls it again", async () => {
  const { pid } = await echoPlugin();
  assert.ok(pid);
  process.kill(pid, "SIGKILL");
  let back = { state: "", pid: pid as number | undefined, line: "" };
  await waitFor(
    async () => {
      back = await echoPlugin();
      return back.state === "running" && back.pid !== pid;
    },
    "echo-ts to be restarted with a new pid",
    { timeoutMs: 15_000, intervalMs: 20 },
  );
  assert.match(back.line, /crashes 1/);
  assert.match(homed.stderr(), /echo-ts/);
  const again = await askEcho("still there?");
  assert.equal(again.toolResult, "still there?");
  assert.equal(again.reply, "the plugin said: still there?");
});

test("a plugin.bin (echo-py, Python) in <data>/plugins runs under a real homed: still executable after start-up", async () => {
  const dir = tempDir("ha-plugin-e2e-bin-");
  installFixturePlugin(dir, "echo-py");
  const other = await startHomedOn(dir, { HOMEAGENT_LLM_BASE_URL: fake.url, HOMEAGENT_LLM_MODEL: "fake-model" });
  const lines = await CliLines.open(other.socket);
  try {
    const listing = await lines.text("/plugins");
    assert.match(listing, /^echo-py \[bin 0\.1\.0\]: running/m, listing);
    fake.enqueue({ toolCalls: [{ name: "echo", arguments: { text: "从 Python 来" } }] }, { text: "done" });
    assert.equal(await lines.text("echo this", 20_000), "done");
    const chats = fake.requests.filter((r) => r.method === "POST");
    const body = chats.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> } | undefined;
    assert.equal(body?.messages.find((m) => m.role === "tool")?.content, "从 Python 来");
  } finally {
    lines.close();
    await other.stop();
  }
});
