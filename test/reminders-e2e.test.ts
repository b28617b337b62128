/**
 * Approvals, the inbox and reminders end to end: a real `homed` with the fake LLM, the client code an
 * interactive `waiter` runs (WaiterClient + ApprovalPrompts) over the cli socket, and real `waiter`
 * subprocesses. "Remind me in 2 seconds to stretch" is printed by an interactive waiter 2 s later; with no
 * waiter connected it waits in the inbox for `waiter --inbox`; an approval a plugin's tool asks is answered
 * in the waiter; `-c` without a terminal refuses at once; a timer survives `kill -9` and fires once.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { CliLines, type HomedProcess, startHomedOn } from "./fixtures/homed-process.js";
import { interactiveWaiter } from "./fixtures/interactive-waiter.js";
import { nodeArgs } from "./fixtures/node-entry.js";
import { installFixturePlugin } from "./fixtures/plugins.js";
import { tempDir } from "./fixtures/temp-dir.js";
import { waitFor } from "./fixtures/wait.js";
import { runWaiter } from "./fixtures/waiter-process.js";

let fake: FakeLLM;
let homed: HomedProcess;
let dir: string;
const env = () => ({ HOMEAGENT_LLM_BASE_URL: fake.url, HOMEAGENT_LLM_MODEL: "fake-model" });

before(async () => {
  dir = tempDir("ha-reminders-");
  installFixturePlugin(dir, "asker");
  fake = await startFakeLLM();
  homed = await startHomedOn(dir, env());
});

after(async () => {
  await homed?.stop();
  await fake?.close();
});

/** A connection as an interactive waiter holds it: what it printed, and its approval prompts. */
/** A real `waiter` on this test's daemon. */
const waiter = (args: string[]) => runWaiter(["--socket", homed.socket, ...args]);

/** The result the model was given for its tool call in the last turn. */
function lastToolResult(): string {
  const chats = fake.requests.filter((r) => r.method === "POST");
  const body = chats.at(-1)?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  return String((body?.messages ?? []).filter((m) => m.role === "tool").at(-1)?.content);
}

test("'remind me in 2 seconds to stretch': an interactive waiter prints the reminder 2 s later", async () => {
  const w = await interactiveWaiter(homed.socket);
  fake.enqueue(
    { toolCalls: [{ name: "timer_set", arguments: { in: "2s", message: "stretch" } }] },
    { text: "Will do." },
  );
  const asked = Date.now();
  try {
    const reply = await w.client.request("remind me in 2 seconds to stretch");
    assert.equal(reply.type === "response" && reply.content, "Will do.");
    assert.match(lastToolResult(), /^timer \d+ set for .*, in 2 s: "stretch"$/);
    await waitFor(() => w.printed.includes("» ⏰ stretch"), "the reminder in the waiter", { timeoutMs: 10_000 });
    assert.ok(Date.now() - asked >= 1_900, "not before its time");
  } finally {
    w.client.close();
  }
});

test("with no waiter connected the reminder waits in the inbox: waiter --inbox prints it once", async () => {
  const cli = await CliLines.open(homed.socket);
  fake.enqueue(
    { toolCalls: [{ name: "timer_set", arguments: { in: "1s", message: "drink water" } }] },
    { text: "OK." },
  );
  assert.equal(await cli.text("remind me in a second to drink water"), "OK.");
  cli.close();
  await waitFor(() => /timer \d+ fired on cli: kept in the inbox/.test(homed.stderr()), "the reminder kept", {
    timeoutMs: 10_000,
  });
  const first = await waiter(["--inbox"]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^\[.+\] ⏰ drink water\n$/);
  assert.equal((await waiter(["--inbox"])).stdout, "the inbox is empty\n", "read = removed");
});

test("an interactive waiter started later prints what was kept before its first prompt", async () => {
  const cli = await CliLines.open(homed.socket);
  fake.enqueue(
    { toolCalls: [{ name: "timer_set", arguments: { in: "1s", message: "take a break" } }] },
    { text: "OK." },
  );
  await cli.text("remind me to take a break");
  cli.close();
  await waitFor(() => (homed.stderr().match(/fired on cli: kept in the inbox/g) ?? []).length === 2, "kept", {
    timeoutMs: 10_000,
  });
  const w = await interactiveWaiter(homed.socket);
  try {
    assert.deepEqual(w.printed, ["» ⏰ take a break"], "printed as /interactive was answered");
  } finally {
    w.client.close();
  }
});

test("/stop at the waiter cancels the approval the running message waits for, and keeps the session", async () => {
  const w = await interactiveWaiter(homed.socket);
  try {
    // No second step: the turn is stopped before it would ask the model again.
    fake.enqueue({ toolCalls: [{ name: "risky_op", arguments: { what: "shut down" } }] });
    const reply = w.client.request("shut down");
    await waitFor(() => w.prompts.waiting, "the approval prompt", { timeoutMs: 10_000 });
    w.client.sendImmediate("/stop");
    const stopped = await reply;
    assert.equal(stopped.type, "error");
    assert.match(stopped.type === "error" ? stopped.error : "", /stopped with \/stop/);
    await waitFor(() => w.printed.includes("(approval cancelled)"), "the prompt withdrawn");
    const approvals = await w.client.request("/approvals");
    assert.match(approvals.type === "response" ? approvals.content : "", /cancelled {2}asker: may I shut down\?/);
    const nothing = await w.client.request("/stop");
    assert.equal(nothing.type === "error" && /out of turn|interactive prompt/.test(nothing.error), true);
  } finally {
    w.client.close();
  }
});

test("an approval a plugin's tool asks is shown escaped in the waiter and answered there", async () => {
  const w = await interactiveWaiter(homed.socket);
  fake.enqueue({ toolCalls: [{ name: "risky_op", arguments: { what: "wipe\u001b[2K\rthe disk" } }] }, { text: "done" });
  try {
    const reply = w.client.request("wipe the disk");
    await waitFor(() => w.prompts.waiting, "the approval prompt", { timeoutMs: 10_000 });
    assert.equal(w.printed.at(-1), "[approve] asker: may I wipe\\e[2K\\rthe disk?");
    assert.equal(w.prompts.answer("maybe"), true, "a line that is no choice is asked again");
    assert.match(String(w.printed.at(-1)), /^type o, a, d/);
    w.prompts.answer("o");
    const done = await reply;
    assert.equal(done.type === "response" && done.content, "done");
    assert.equal(lastToolResult(), "did wipe\u001b[2K\rthe disk (once)");
    const approvals = await w.client.request("/approvals");
    assert.match(approvals.type === "response" ? approvals.content : "", /once by waiter {2}asker: may I wipe\\e\[2K/);
  } finally {
    w.client.close();
  }
});

test("waiter -c without a terminal cannot be asked: the approval is refused at once", async () => {
  fake.enqueue({ toolCalls: [{ name: "risky_op", arguments: { what: "reboot" } }] }, { text: "refused, fine" });
  const r = await waiter(["-c", "reboot please"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "refused, fine");
  assert.equal(lastToolResult(), "did not reboot: no_client");
});

/**
 * The real `waiter` (at its interactive prompt, or with `args`) on a pseudo-terminal (python3's pty module: the test's pipe
 * becomes the waiter's terminal). Returns what it printed so far and a way to type a line.
 */
function waiterOnTerminal(...args: string[]) {
  const proc = spawn(
    "python3",
    [
      "-c",
      "import pty, sys; pty.spawn(sys.argv[1:])",
      process.execPath,
      ...nodeArgs("src/bin/waiter.ts", "--socket", homed.socket, ...args),
    ],
    {
      env: { ...process.env, HOMEAGENT_API_KEY: "", HOMEAGENT_SOCKET: "", NO_COLOR: "1", TERM: "dumb" },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let out = "";
  proc.stdout.on("data", (d) => {
    out += d;
  });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  return {
    output: () => out,
    type: (line: string) => proc.stdin.write(`${line}\r`),
    close: async () => {
      proc.stdin.end();
      proc.kill();
      await exited;
    },
  };
}

test("the real interactive waiter on a terminal prints a reminder and answers an approval", async () => {
  const w = waiterOnTerminal();
  try {
    // The first prompt comes once the waiter has been answered /interactive (it is then asked approvals).
    await waitFor(() => /connected to homed[^\n]*\r?\n[\s\S]*> /.test(w.output()), "the prompt", { timeoutMs: 15_000 });
    const cli = await CliLines.open(homed.socket);
    fake.enqueue(
      { toolCalls: [{ name: "timer_set", arguments: { in: "1s", message: "look away" } }] },
      { text: "OK." },
    );
    assert.equal(await cli.text("remind me to look away"), "OK.");
    await waitFor(() => w.output().includes("⏰ look away"), "the reminder on the terminal", { timeoutMs: 10_000 });
    fake.enqueue(
      { toolCalls: [{ name: "risky_op", arguments: { what: "empty\u001b[31m the bin" } }] },
      { text: "emptied" },
    );
    const reply = cli.text("empty the bin", 20_000);
    await waitFor(() => /\[o\]nce \/ \[a\]lways \/ \[d\]eny \(…\S{4}\)\? /.test(w.output()), "the approval prompt", {
      timeoutMs: 10_000,
    });
    assert.match(w.output(), /\[approve\] asker: may I empty\\e\[31m the bin\?/);
    w.type("a");
    assert.equal(await reply, "emptied");
    assert.equal(lastToolResult(), "did empty\u001b[31m the bin (always)");
    cli.close();
  } finally {
    await w.close();
  }
});

test("waiter -c on a terminal reads the approval its message asks from the terminal", async () => {
  fake.enqueue({ toolCalls: [{ name: "risky_op", arguments: { what: "water the plants" } }] }, { text: "watered" });
  const w = waiterOnTerminal("-c", "water the plants");
  try {
    await waitFor(() => /\[o\]nce \/ \[a\]lways \/ \[d\]eny \(…\S{4}\)\? /.test(w.output()), "the approval prompt", {
      timeoutMs: 15_000,
    });
    assert.match(w.output(), /\[approve\] asker: may I water the plants\?/);
    w.type("o");
    await waitFor(() => w.output().includes("watered"), "the reply", { timeoutMs: 10_000 });
    assert.equal(lastToolResult(), "did water the plants (once)");
  } finally {
    await w.close();
  }
});

test("a timer set before kill -9 fires once after the restart", async () => {
  const cli = await CliLines.open(homed.socket);
  fake.enqueue(
    { toolCalls: [{ name: "timer_set", arguments: { in: "1s", message: "after the crash" } }] },
    { text: "Set." },
  );
  assert.equal(await cli.text("remind me in a second"), "Set.");
  cli.close();
  await homed.kill();
  // As if homed had stayed down for an hour after the crash.
  const db = new Database(join(dir, "plugin_data", "timer", "timers.db"));
  db.prepare("UPDATE timers SET due_at = due_at - 3600000").run();
  db.close();
  homed = await startHomedOn(dir, env());
  await waitFor(() => /timer \d+ fired on cli: kept in the inbox/.test(homed.stderr()), "the reminder after restart", {
    timeoutMs: 10_000,
  });
  const inbox = await waiter(["--inbox"]);
  assert.equal(inbox.stdout.match(/⏰ after the crash/g)?.length, 1, inbox.stdout);
  assert.match(
    inbox.stdout,
    /⏰ after the crash \(due \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?, 1 h late: homed was not running/,
  );
});
