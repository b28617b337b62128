/**
 * A plugin's own data forgets with the user: the `notebook` fixture, a plugin.js subprocess with capability
 * `forget_hook`, keeps notes in its data dir and registers `onForget`. In a real daemon its notes show in the
 * forget preview (counts and samples), leave its file when the forget is confirmed, and leave it too when the
 * model's memory_delete_entity forgets a name. Without the capability, registering the handler is refused.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ForgetReport } from "@homeagent/sdk";
import { installFixturePlugin } from "./fixtures/plugins.js";
import { tempDir } from "./fixtures/temp-dir.js";
import { waitFor } from "./fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "./fixtures/webui.js";

let web: WebDaemon;
let notes: string;

before(async () => {
  const dataDir = tempDir("ha-plugin-forget-");
  installFixturePlugin(dataDir, "notebook");
  const denied = installFixturePlugin(dataDir, "notebook", "notebook-denied");
  const manifest = join(denied, "plugin.json");
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), capabilities: [] }));
  web = await startWebDaemon({ dataDir });
  notes = join(dataDir, "plugin_data", "notebook", "notes.jsonl");
  await waitFor(
    () => web.daemon.plugins.list().find((p) => p.name === "notebook")?.state === "running",
    "the notebook plugin to run",
    { timeoutMs: 15_000, intervalMs: 20 },
  );
});

after(async () => {
  await web?.stop();
});

async function note(text: string): Promise<void> {
  web.llm.enqueue({ toolCalls: [{ name: "notebook_add", arguments: { text } }] }, { text: "Noted." });
  assert.equal((await web.json("POST", "/api/v1/chat", { message: "take a note" })).status, 200);
}

async function forget(query: string, confirm: boolean): Promise<ForgetReport> {
  const r = await web.json("DELETE", "/api/v1/memory", { query, confirm });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

test("without forget_hook a plugin may not register a forget handler", async () => {
  await waitFor(
    () => web.daemon.plugins.list().find((p) => p.name === "notebook-denied")?.state === "failed",
    "refusal",
    {
      timeoutMs: 15_000,
      intervalMs: 20,
    },
  );
  const info = web.daemon.plugins.list().find((p) => p.name === "notebook-denied");
  assert.match(info?.lastError ?? "", /onForget.*forget_hook/);
});

test("the preview lists the plugin's matching notes; the forget removes them from its file", async () => {
  await note("bank pin 7391-zebra-quartz");
  await note("buy oat milk");
  const preview = await forget("7391-ZEBRA-quartz", false);
  const notebook = preview.plugins.find((p) => p.plugin === "notebook");
  assert.deepEqual(notebook, { plugin: "notebook", counts: { notes: 1 }, samples: ["bank pin 7391-zebra-quartz"] });
  assert.match(readFileSync(notes, "utf8"), /7391-zebra-quartz/, "a preview removes nothing");

  const done = await forget("7391-ZEBRA-quartz", true);
  assert.deepEqual(done.plugins.find((p) => p.plugin === "notebook")?.counts, { notes: 1 });
  const left = readFileSync(notes, "utf8");
  assert.ok(!left.includes("7391"), left);
  assert.match(left, /oat milk/, "the other notes stay");
});

test("the model's memory_delete_entity reaches the plugin's data too", async () => {
  await note("Zed Quill owes me ten euros");
  await web.daemon.host.memory?.memory.commit([{ subject: "Zed Quill", relation: "owes", object: "the user" }]);
  web.llm.enqueue(
    { toolCalls: [{ name: "memory_delete_entity", arguments: { name: "Zed Quill" } }] },
    { text: "Done." },
  );
  await web.json("POST", "/api/v1/chat", { message: "forget Zed Quill entirely" });
  await waitFor(() => !readFileSync(notes, "utf8").includes("Zed Quill"), "the note about Zed Quill to go");
});
