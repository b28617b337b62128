/**
 * The file tools on the mock SDK against real files: every way out of the folder is refused — `..`, an
 * absolute path, a symlink to /etc, a link swapped in between the check and the open (for the file and for a
 * folder on its path), a hard link to the credentials file, the data dir reached through a widened
 * plugin.files.dir, a folder swapped before a file is created in it — and reading, writing (atomic, mode
 * kept, within the workspace's size limit), editing, listing (links as links) and finding (within its
 * budgets) work inside it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import type { ApprovalOutcome } from "@homeagent/sdk";
import { createMockSDK } from "@homeagent/sdk/test";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { type Area, holdFolder, openChecked } from "./confine.js";
import { findFiles } from "./find.js";
import { createFilesPlugin } from "./plugin.js";

async function start(opts: { dir?: string; approve?: () => ApprovalOutcome; data?: string } = {}) {
  const data = opts.data ?? tempDir("ha-files-");
  writeFileSync(join(data, "credentials"), "password=hunter2\n", { mode: 0o600 });
  const sdk = createMockSDK({
    pluginName: "files",
    daemonDataDir: data,
    settings: opts.dir ? { dir: opts.dir } : {},
    approve: opts.approve,
  });
  await createFilesPlugin().start(sdk);
  const ws = join(data, "workspace");
  const call = (tool: string, args: Record<string, unknown>) =>
    sdk.callTool(tool, args, { requestId: "req-1", channel: "cli" });
  return { sdk, data, ws, call };
}

const denied = (err: unknown) => (err as { code?: string }).code === "path_denied";

test("reading, writing, inserting, appending and editing inside the workspace", async () => {
  const { call, ws } = await start();
  assert.equal(
    await call("files_write", { path: "notes/todo.md", content: "a\nb\nc" }),
    "wrote notes/todo.md (5 bytes)",
  );
  await call("files_write", { path: "notes/todo.md", content: "\nd", mode: "append" });
  await call("files_write", { path: "notes/todo.md", content: "a2", mode: "insert", line: 2 });
  assert.equal(readFileSync(join(ws, "notes/todo.md"), "utf8"), "a\na2\nb\nc\nd");
  const read = (await call("files_read", { path: "notes/todo.md", offset: 2, limit: 2 })) as Record<string, unknown>;
  assert.equal(read.text, "a2\nb");
  assert.match(String(read.more), /offset 4/);
  await assert.rejects(call("files_write", { path: "notes/todo.md", content: "x", mode: "create" }), /exists already/);
  await call("files_edit", {
    path: "notes/todo.md",
    edits: [
      { old: "a2", new: "A2" },
      { old: "d", new: "D" },
    ],
  });
  assert.equal(readFileSync(join(ws, "notes/todo.md"), "utf8"), "a\nA2\nb\nc\nD");
  await assert.rejects(
    call("files_edit", {
      path: "notes/todo.md",
      edits: [
        { old: "b", new: "B" },
        { old: "missing", new: "x" },
      ],
    }),
    /not in notes\/todo.md; nothing was changed/,
  );
  await assert.rejects(
    call("files_edit", { path: "notes/todo.md", edits: [{ old: "\n", new: "" }] }),
    /more than once/,
  );
  assert.equal(readFileSync(join(ws, "notes/todo.md"), "utf8"), "a\nA2\nb\nc\nD", "all or nothing");
});

test("a write keeps the file's mode and is atomic; limits are said", async () => {
  const { call, ws, sdk } = await start();
  writeFileSync(join(ws, "script.sh"), "echo hi\n");
  chmodSync(join(ws, "script.sh"), 0o750);
  await call("files_write", { path: "script.sh", content: "echo bye\n" });
  assert.equal(statSync(join(ws, "script.sh")).mode & 0o777, 0o750);
  sdk.settings.set("max_write_bytes", "1000");
  await assert.rejects(
    call("files_write", { path: "big.txt", content: "x".repeat(1001) }),
    /more than 1000 \(plugin.files.max_write_bytes\)/,
  );
});

test("a binary file that is no PDF or DOCX is refused with its type and size", async () => {
  const { call, ws } = await start();
  writeFileSync(join(ws, "photo.png"), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(100, 1)]));
  await assert.rejects(call("files_read", { path: "photo.png" }), /photo.png is a PNG image \(104 bytes\), not text/);
});

test("no way out: .., an absolute path, a symlink to /etc, a hard link to the credentials", async () => {
  const { call, ws, data } = await start();
  symlinkSync("/etc", join(ws, "etc"));
  linkSync(join(data, "credentials"), join(ws, "creds"));
  for (const path of ["../credentials", "/etc/passwd", "etc/passwd", `${data}/credentials`, "creds"]) {
    await assert.rejects(call("files_read", { path }), denied, path);
  }
  await assert.rejects(call("files_write", { path: "../evil", content: "x" }), denied);
  await assert.rejects(call("files_write", { path: "etc/evil", content: "x" }), denied);
  await assert.rejects(call("files_ls", { path: ".." }), denied);
  const listed = (await call("files_ls", {})) as { entries: Array<{ name: string }> };
  assert.deepEqual(listed.entries.map((e) => e.name).sort(), ["creds", "etc"]);
});

test("a file or a folder swapped for a link between the check and the open is caught", async () => {
  const data = tempDir("ha-files-");
  const ws = join(data, "workspace");
  mkdirSync(join(ws, "docs"), { recursive: true });
  writeFileSync(join(ws, "note.txt"), "mine");
  writeFileSync(join(ws, "docs", "passwd"), "mine too");
  const area: Area = { root: ws, dataDir: data, workspace: ws };
  const swapFile = () => {
    renameSync(join(ws, "note.txt"), join(ws, "note.old"));
    symlinkSync("/etc/passwd", join(ws, "note.txt"));
  };
  assert.throws(() => openChecked(area, "note.txt", constants.O_RDONLY, 0o600, swapFile), denied);
  const swapFolder = () => {
    renameSync(join(ws, "docs"), join(ws, "docs.old"));
    symlinkSync("/etc", join(ws, "docs"));
  };
  assert.throws(() => openChecked(area, "docs/passwd", constants.O_RDONLY, 0o600, swapFolder), denied);
});

test("a folder swapped for a link before a file is created in it: nothing is made outside", () => {
  const data = tempDir("ha-files-");
  const outside = tempDir("ha-files-outside-");
  const ws = join(data, "workspace");
  mkdirSync(join(ws, "docs"), { recursive: true });
  const area: Area = { root: ws, dataDir: data, workspace: ws };
  const swap = () => {
    renameSync(join(ws, "docs"), join(ws, "docs.old"));
    symlinkSync(outside, join(ws, "docs"));
  };
  const create = constants.O_WRONLY | constants.O_CREAT;
  assert.throws(() => openChecked(area, "docs/new.txt", create, 0o600, swap), denied);
  assert.equal(existsSync(join(outside, "new.txt")), false);
});

test("a held folder keeps its place: swapping its path for a link afterwards sends nothing elsewhere", () => {
  const data = tempDir("ha-files-");
  const outside = tempDir("ha-files-outside-");
  const ws = join(data, "workspace");
  mkdirSync(join(ws, "docs"), { recursive: true });
  const area: Area = { root: ws, dataDir: data, workspace: ws };
  const held = holdFolder(area, join(ws, "docs"), "docs");
  renameSync(join(ws, "docs"), join(ws, "docs.old"));
  symlinkSync(outside, join(ws, "docs"));
  writeFileSync(held.at("x.txt"), "in the held folder");
  held.close();
  assert.equal(readFileSync(join(ws, "docs.old", "x.txt"), "utf8"), "in the held folder");
  assert.equal(existsSync(join(outside, "x.txt")), false);
});

test("files_ls describes a link as a link: the size and time of what it points to are not told", async () => {
  const { call, ws, data } = await start();
  symlinkSync(join(data, "credentials"), join(ws, "creds"));
  const listed = (await call("files_ls", {})) as { entries: Array<{ name: string; type: string; size: number }> };
  const link = listed.entries.find((e) => e.name === "creds");
  assert.equal(link?.type, "link");
  assert.equal(link?.size, join(data, "credentials").length, "the link's own size, not the credentials'");
});

test("files_find stops at its budget and says so", async () => {
  const { ws } = await start();
  for (let i = 0; i < 20; i++) writeFileSync(join(ws, `f${i}.txt`), "needle\n");
  const area: Area = { root: ws, dataDir: dirname(ws), workspace: ws };
  const few = await findFiles(area, { name: "*.txt" }, { visited: 5, searchedBytes: 1e9, timeMs: 60_000 });
  assert.equal(few.found.length, 5);
  assert.match(String(few.note), /stopped: 5 entries looked at/);
  const bytes = await findFiles(area, { text: "needle" }, { visited: 1e6, searchedBytes: 14, timeMs: 60_000 });
  assert.equal(bytes.found.length, 2, "7 bytes a file: the budget runs out after two");
  assert.match(String(bytes.note), /14 bytes searched/);
});

test("a path too long or too deep is refused at once, before any folder is made", async () => {
  const { call, ws } = await start();
  const started = performance.now();
  await assert.rejects(call("files_read", { path: "a/".repeat(20_000) }), /at most 4096 characters/);
  await assert.rejects(call("files_write", { path: `${"d/".repeat(70)}f`, content: "" }), /at most 64 folders deep/);
  assert.ok(performance.now() - started < 500, "no walk of a huge path");
  assert.equal(existsSync(join(ws, "d")), false);
  await call("files_write", { path: "..notes", content: "a name that starts with two dots is inside" });
  assert.equal(((await call("files_read", { path: "..notes" })) as { text: string }).text.startsWith("a name"), true);
});

test("the workspace has a size limit, and a refusal says how to make room", async () => {
  const { call, sdk } = await start();
  sdk.settings.set("max_workspace_mb", "1");
  const half = "x".repeat(600_000);
  await call("files_write", { path: "a.txt", content: half });
  await assert.rejects(
    call("files_write", { path: "b.txt", content: half }),
    /may hold 1.0 MB \(plugin.files.max_workspace_mb\).*remove files/,
  );
  sdk.settings.set("max_write_bytes", "1000");
  sdk.settings.set("max_workspace_mb", "2");
  await assert.rejects(call("files_write", { path: "c.txt", content: "y".repeat(5_000) }), /max_write_bytes/);
  await call("files_write", { path: "d.txt", content: "fits" });
});

test("a folder widened over the data dir still never reaches it; writing outside the workspace asks", async () => {
  const parent = tempDir("ha-files-home-");
  const data = join(parent, ".homeagent");
  mkdirSync(data);
  writeFileSync(join(parent, "diary.txt"), "dear diary");
  const asked: string[] = [];
  let answer: ApprovalOutcome = { approved: false, reason: "denied", by: "waiter" };
  const { call, sdk } = await start({
    data,
    dir: parent,
    approve: () => {
      asked.push("asked");
      return answer;
    },
  });
  assert.equal(((await call("files_read", { path: "diary.txt" })) as { text: string }).text, "dear diary");
  for (const path of [".homeagent/credentials", ".homeagent/config.db", ".homeagent/plugins/x"]) {
    await assert.rejects(call("files_read", { path }), denied, path);
  }
  await call("files_write", { path: ".homeagent/workspace/ok.txt", content: "in the workspace: no question" });
  assert.deepEqual(asked, []);
  await assert.rejects(call("files_write", { path: "diary.txt", content: "x" }), /approval was refused/);
  answer = { approved: true, how: "once", by: "waiter" };
  await call("files_write", { path: "diary.txt", content: "approved" });
  assert.equal(readFileSync(join(parent, "diary.txt"), "utf8"), "approved");
  assert.match(sdk.asked[1].question, /^write .*diary.txt$/);
  const found = (await call("files_find", { text: "credentials" })) as { found: Array<{ path: string }> };
  assert.equal(
    found.found.some((f) => f.path.includes(".homeagent/credentials")),
    false,
  );
});

test("files_find by name and by text", async () => {
  const { call, ws } = await start();
  mkdirSync(join(ws, "a/b"), { recursive: true });
  writeFileSync(join(ws, "a/one.md"), "nothing here");
  writeFileSync(join(ws, "a/b/two.md"), "first\nthe 菠萝 recipe\n");
  writeFileSync(join(ws, "a/b/three.txt"), "菠萝 too");
  const byName = (await call("files_find", { name: "*.md" })) as { found: Array<{ path: string }> };
  assert.deepEqual(byName.found.map((f) => f.path).sort(), ["a/b/two.md", "a/one.md"]);
  const byText = (await call("files_find", { name: "*.md", text: "菠萝" })) as {
    found: Array<Record<string, unknown>>;
  };
  assert.deepEqual(byText.found, [{ path: "a/b/two.md", line: 2, preview: "the 菠萝 recipe" }]);
});

test("a named pipe is refused at once instead of blocking the daemon until a writer comes", async () => {
  const { call, ws } = await start();
  execFileSync("mkfifo", [join(ws, "pipe")]);
  await assert.rejects(call("files_read", { path: "pipe" }), /not a regular file/);
});
