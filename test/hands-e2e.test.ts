/**
 * The agent's hands through a real `homed` with the fake LLM, over the cli socket: the model lists the
 * workspace with files_ls, reads an uploaded PDF's text with files_read and edits a file with files_edit;
 * `cmd_run uname -a` runs at once; `ls /` asks, is approved in an interactive waiter, and its output reaches
 * the model; with nobody to ask it is refused.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { makePdf } from "./fixtures/documents.js";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { CliLines, type HomedProcess, startHomedOn } from "./fixtures/homed-process.js";
import { interactiveWaiter } from "./fixtures/interactive-waiter.js";
import { tempDir } from "./fixtures/temp-dir.js";
import { waitFor } from "./fixtures/wait.js";

let fake: FakeLLM;
let homed: HomedProcess;
let workspace: string;

before(async () => {
  const dir = tempDir("ha-hands-");
  workspace = join(dir, "workspace");
  mkdirSync(join(workspace, "uploads"), { recursive: true });
  writeFileSync(join(workspace, "uploads", "report.pdf"), makePdf("Quarterly report: 42 apples"));
  writeFileSync(join(workspace, "todo.md"), "- buy milk\n- call Ada\n");
  fake = await startFakeLLM();
  homed = await startHomedOn(dir, { HOMEAGENT_LLM_BASE_URL: fake.url, HOMEAGENT_LLM_MODEL: "fake-model" });
});

after(async () => {
  await homed?.stop();
  await fake?.close();
});

/** The result the model was given for its last tool call. */
function lastToolResult(): string {
  const chats = fake.requests.filter((r) => r.method === "POST");
  const body = chats.at(-1)?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  return String((body?.messages ?? []).filter((m) => m.role === "tool").at(-1)?.content);
}

async function ask(line: string, ...steps: Parameters<FakeLLM["enqueue"]>): Promise<string> {
  fake.enqueue(...steps);
  const cli = await CliLines.open(homed.socket);
  try {
    return await cli.text(line, 20_000);
  } finally {
    cli.close();
  }
}

test("the model lists the workspace, reads an uploaded PDF's text and edits a file", async () => {
  await ask("what is in my workspace?", { toolCalls: [{ name: "files_ls", arguments: {} }] }, { text: "listed" });
  const listed = JSON.parse(lastToolResult()) as { entries: Array<{ name: string; type: string }> };
  assert.deepEqual(
    listed.entries.map((e) => `${e.name}:${e.type}`),
    ["todo.md:file", "uploads:folder"],
  );
  await ask(
    "what does the report say?",
    { toolCalls: [{ name: "files_read", arguments: { path: "uploads/report.pdf" } }] },
    { text: "42 apples" },
  );
  const read = JSON.parse(lastToolResult()) as { text: string; document: string };
  assert.equal(read.document, "text of a PDF, 1 page(s)");
  assert.match(read.text, /Quarterly report: 42 apples/);
  await ask(
    "I called Ada",
    { toolCalls: [{ name: "files_edit", arguments: { path: "todo.md", edits: [{ old: "- call Ada\n", new: "" }] } }] },
    { text: "done" },
  );
  assert.equal(readFileSync(join(workspace, "todo.md"), "utf8"), "- buy milk\n");
});

test("`uname -a` runs at once; `ls /` asks, runs once approved in the waiter, and is refused with nobody to ask", async () => {
  assert.equal(
    await ask(
      "which kernel?",
      { toolCalls: [{ name: "cmd_run", arguments: { command: "uname -a" } }] },
      { text: "Linux" },
    ),
    "Linux",
  );
  const uname = JSON.parse(lastToolResult()) as { status: string; stdout: string };
  assert.equal(uname.status, "ok");
  assert.match(uname.stdout, /Linux/);

  await ask("list /", { toolCalls: [{ name: "cmd_run", arguments: { command: "ls /" } }] }, { text: "refused" });
  assert.match(lastToolResult(), /not run: it names a path.*nobody is connected who could approve it/);

  const { client, printed, prompts } = await interactiveWaiter(homed.socket);
  try {
    const reply = ask(
      "list / again",
      { toolCalls: [{ name: "cmd_run", arguments: { command: "ls /" } }] },
      { text: "here it is" },
    );
    await waitFor(() => prompts.waiting, "the approval prompt", { timeoutMs: 10_000 });
    assert.match(String(printed.at(-1)), /^\[approve\] cmd: run ls \/ {3}\(in a new empty folder\)$/);
    prompts.answer("o");
    assert.equal(await reply, "here it is");
    const ls = JSON.parse(lastToolResult()) as { status: string; stdout: string };
    assert.equal(ls.status, "ok");
    assert.match(ls.stdout, /\bbin\b/);
    const history = await client.request("/cmd history");
    assert.match(
      history.type === "response" ? history.content : "",
      /exit 0, \d+ ms {2}ls \/ {2}\(approved \(once\) by waiter\)/,
    );
  } finally {
    client.close();
  }
});
