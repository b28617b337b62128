/**
 * The workspace over HTTP against a real daemon: a folder listed, a file downloaded as an attachment and
 * removed; `..`, a link out and a hard link to the credentials are neither listed through, served nor
 * followed; the agent's command history is there too.
 */
import assert from "node:assert/strict";
import { existsSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startWebDaemon, type WebDaemon } from "../../../../test/fixtures/webui.js";

let w: WebDaemon;
let ws: string;
before(async () => {
  w = await startWebDaemon();
  ws = join(w.daemon.paths.root, "workspace");
  mkdirSync(join(ws, "notes"), { recursive: true });
  writeFileSync(join(ws, "notes", "a.md"), "# A\n");
  symlinkSync("/etc", join(ws, "etc"));
  linkSync(w.daemon.auth.credentialsFile(), join(ws, "creds"));
});
after(() => w.stop());

test("a folder is listed, a file downloaded as an attachment and removed", async () => {
  const root = await w.json("GET", "/api/v1/workspace");
  assert.equal(root.status, 200);
  assert.deepEqual(
    root.body.entries.map((e: { name: string; type: string }) => `${e.name}:${e.type}`),
    ["creds:file", "etc:link", "notes:folder"],
  );
  const notes = await w.json("GET", "/api/v1/workspace?path=notes");
  assert.equal(notes.body.entries[0].name, "a.md");
  const file = await w.fetch("/api/v1/workspace/file?path=notes/a.md");
  assert.equal(file.status, 200);
  assert.match(String(file.headers.get("content-disposition")), /^attachment/);
  assert.equal(await file.text(), "# A\n");
  assert.equal((await w.json("DELETE", "/api/v1/workspace/file?path=notes/a.md")).status, 200);
  assert.equal(existsSync(join(ws, "notes", "a.md")), false);
});

test("no way out: .., a link to /etc, a hard link to the credentials", async () => {
  assert.equal((await w.json("GET", "/api/v1/workspace?path=..")).status, 403);
  assert.equal((await w.fetch("/api/v1/workspace/file?path=../credentials")).status, 403);
  assert.equal((await w.json("GET", "/api/v1/workspace?path=etc")).status, 404, "a link to a folder is not followed");
  assert.equal((await w.fetch("/api/v1/workspace/file?path=etc/passwd")).status, 403);
  assert.equal((await w.fetch("/api/v1/workspace/file?path=creds")).status, 404, "a file with two names is not served");
});

test("the command history", async () => {
  w.llm.enqueue({ toolCalls: [{ name: "cmd_run", arguments: { command: "uname -s" } }] }, { text: "ok" });
  await w.json("POST", "/api/v1/chat", { message: "kernel?" });
  const { commands } = (await w.json("GET", "/api/v1/cmd/history")).body;
  assert.equal(commands[0].command, "uname -s");
  assert.equal(commands[0].status, "ok");
});
