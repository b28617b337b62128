/** chat/file and /uploads over real HTTP against the mock SDK: storage, names, limits, quota, path escapes. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { createMockSDK, type MockResponder, type MockSDK } from "@homeagent/sdk/test";
import { tempDir } from "../../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../../test/fixtures/wait.js";
import { rawRequest } from "../../../../test/fixtures/webui.js";
import { type RoutesServer, serveRoutes, TEST_LIMITS } from "../../../../test/fixtures/webui-routes.js";
import type { WebLimits } from "../context.js";
import { safeUploadName } from "../upload-names.js";
import { chatRoutes } from "./chat.js";
import { chatFileRoutes } from "./chat-file.js";
import { uploadsRoutes } from "./uploads.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever shape the route answers
const read = async (res: Response): Promise<any> => res.json();

let server: RoutesServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

interface Started {
  sdk: MockSDK;
  url: string;
  dir: string;
}

async function start(limits: Partial<WebLimits> = {}, respond?: MockResponder): Promise<Started> {
  const data = tempDir("ha-uploads-");
  const sdk = createMockSDK({ pluginName: "webui", daemonDataDir: data, respond });
  server = await serveRoutes([chatRoutes, chatFileRoutes, uploadsRoutes], sdk, { ...TEST_LIMITS, ...limits });
  return { sdk, url: server.url, dir: join(data, "workspace", "uploads") };
}

function upload(url: string, name: string, content: string | Uint8Array, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.set("file", new Blob([content], { type: "text/plain" }), name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return fetch(`${url}/api/v1/chat/file`, { method: "POST", body: form });
}

const BOUNDARY = "----test-boundary-7MA4YWxkTrZu0gW";

function multipartHead(filename: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
}
const MULTIPART_TAIL = `\r\n--${BOUNDARY}--\r\n`;

/** An upload whose headers and first bytes are sent, and then nothing: it holds an upload slot. */
async function stalledUpload(url: string, declared: number): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => {});
  socket.write(
    [
      "POST /api/v1/chat/file HTTP/1.1",
      `Host: ${hostname}:${port}`,
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      `Content-Length: ${declared}`,
      "",
      multipartHead("slow.bin") + "x".repeat(100),
    ].join("\r\n"),
  );
  return socket;
}

describe("POST /api/v1/chat/file", () => {
  it("stores the file (0600) under a safe name and serves it back as an attachment", async () => {
    const { url, dir, sdk } = await start();
    const res = await upload(url, "../../季度 报告.txt", "第一行\nline two");
    assert.equal(res.status, 200);
    const { file } = await read(res);
    assert.deepEqual(file, {
      name: "季度_报告.txt",
      url: `/uploads/${encodeURIComponent("季度_报告.txt")}`,
      size: Buffer.byteLength("第一行\nline two"),
      type: "text/plain",
    });
    assert.equal(statSync(join(dir, file.name)).mode & 0o777, 0o600);
    assert.equal(sdk.inputs.length, 0, "no message, no chat");
    const got = await fetch(url + file.url);
    assert.equal(got.status, 200);
    assert.equal(await got.text(), "第一行\nline two");
    assert.equal(got.headers.get("content-type"), "application/octet-stream");
    assert.equal(got.headers.get("x-content-type-options"), "nosniff");
    assert.match(got.headers.get("content-disposition") ?? "", /^attachment; filename="__+.txt"; filename\*=UTF-8''/);
    assert.match(got.headers.get("cache-control") ?? "", /^private/);
  });

  it("serves a safe media type as itself, and neutralises a dangerous extension", async () => {
    const { url } = await start();
    const png = await read(await upload(url, "pic.PNG", "\x89PNG"));
    assert.equal((await fetch(url + png.file.url)).headers.get("content-type"), "image/png");
    const html = await read(await upload(url, "page.html", "<script>alert(1)</script>"));
    assert.equal(html.file.name, "page.html.bin");
    assert.equal((await fetch(url + html.file.url)).headers.get("content-type"), "application/octet-stream");
    const svg = await read(await upload(url, "x.svg", "<svg/>"));
    assert.equal(svg.file.name, "x.svg.bin");
  });

  it("gives a second file of the same name a suffix instead of overwriting", async () => {
    const { url, dir } = await start();
    assert.equal((await read(await upload(url, "a.txt", "one"))).file.name, "a.txt");
    assert.equal((await read(await upload(url, "a.txt", "two"))).file.name, "a-1.txt");
    assert.deepEqual(readdirSync(dir).sort(), ["a-1.txt", "a.txt"]);
  });

  it("sends the message with a note naming the file to the agent, and answers with the reply", async () => {
    const { url, sdk } = await start({}, () => "收到");
    const res = await upload(url, "data.csv", "a,b\n1,2\n", { message: "看看这个文件", device_id: "phone" });
    const body = await read(res);
    assert.equal(body.reply.response, "收到");
    assert.equal(sdk.inputs[0].source, "webui/phone");
    assert.equal(sdk.inputs[0].text, "看看这个文件\n\n[attached file: uploads/data.csv (8 B, text/plain)]");
  });

  it("answers a repeated client_msg_id with the first upload, keeping one copy", async () => {
    const { url, sdk, dir } = await start({}, () => "ok");
    const first = await read(await upload(url, "n.txt", "x", { message: "m", client_msg_id: "c1" }));
    const again = await read(await upload(url, "n.txt", "x", { message: "m", client_msg_id: "c1" }));
    assert.deepEqual(again.file, first.file);
    assert.equal(again.reply.deduplicated, true);
    assert.equal(sdk.inputs.length, 1);
    assert.deepEqual(readdirSync(dir), ["n.txt"]);
  });

  it("keeps the file and says so when the chat about it fails", async () => {
    const { url } = await start({}, () => ({ error: "all 1 providers failed" }));
    const res = await upload(url, "k.txt", "k", { message: "m" });
    assert.equal(res.status, 502);
    const body = await read(res);
    assert.equal(body.error.code, "chat_failed");
    assert.equal(body.file.name, "k.txt");
  });

  it("refuses what is not a multipart upload of a file", async () => {
    const { url } = await start();
    const json = await fetch(`${url}/api/v1/chat/file`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    assert.equal(json.status, 415);
    const form = new FormData();
    form.set("message", "no file");
    const noFile = await fetch(`${url}/api/v1/chat/file`, { method: "POST", body: form });
    assert.equal(noFile.status, 400);
    assert.match((await read(noFile)).error.message, /file/);
    const broken = await rawRequest(url, {
      method: "POST",
      path: "/api/v1/chat/file",
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      body: `${multipartHead("cut.txt")}no closing boundary`,
    });
    assert.equal(broken.status, 400);
    assert.equal(JSON.parse(broken.body).error.code, "invalid_multipart");
  });

  it("refuses a file over the limit by its Content-Length before reading, and while streaming without one", async () => {
    const { url, dir } = await start({ maxUploadBytes: 1000 });
    const declared = await rawRequest(url, {
      method: "POST",
      path: "/api/v1/chat/file",
      // The body promised is never sent: the server answers at once and then drops the connection.
      headers: {
        "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
        "content-length": String(10_000_000),
        connection: "close",
      },
      body: "",
    });
    assert.equal(declared.status, 413);
    assert.equal(JSON.parse(declared.body).error.code, "upload_too_large");
    const chunked = await rawRequest(url, {
      method: "POST",
      path: "/api/v1/chat/file",
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, "transfer-encoding": "chunked" },
      body: multipartHead("big.bin") + "z".repeat(5000) + MULTIPART_TAIL,
    });
    assert.equal(chunked.status, 413);
    assert.equal(JSON.parse(chunked.body).error.code, "upload_too_large");
    assert.deepEqual(readdirSync(dir), [], "nothing is left of the refused upload");
  });

  it("keeps the whole folder within the quota", async () => {
    const { url, dir } = await start({ uploadQuotaBytes: 3000 });
    assert.equal((await upload(url, "one.bin", "a".repeat(2000))).status, 200);
    const over = await upload(url, "two.bin", "b".repeat(2000));
    assert.equal(over.status, 413);
    assert.equal((await read(over)).error.code, "upload_quota");
    assert.deepEqual(readdirSync(dir), ["one.bin"]);
    assert.equal((await upload(url, "small.bin", "c".repeat(500))).status, 200);
  });

  it("runs at most two uploads at once (429 upload_busy), freeing a slot when a client goes", async () => {
    const { url } = await start();
    const a = await stalledUpload(url, 100_000);
    await stalledUpload(url, 100_000);
    await waitFor(async () => (await upload(url, "c.txt", "c")).status === 429, "the third upload to be refused");
    const busy = await upload(url, "c.txt", "c");
    assert.equal((await read(busy)).error.code, "upload_busy");
    assert.ok(busy.headers.get("retry-after"));
    a.destroy();
    await waitFor(async () => (await upload(url, "d.txt", "d")).status === 200, "a slot to free up");
  });
});

describe("GET /uploads/:name", () => {
  it("serves nothing outside the uploads folder: ../, %2e%2e, dot files, symlinks", async () => {
    const { url, dir } = await start();
    await upload(url, "ok.txt", "fine");
    writeFileSync(join(dir, "..", "..", "secret.txt"), "top secret");
    writeFileSync(join(dir, ".part-deadbeef"), "half an upload");
    symlinkSync(join(dir, "..", "..", "secret.txt"), join(dir, "link.txt"));
    mkdirSync(join(dir, "sub.d"));
    const paths = [
      "/uploads/..%2F..%2Fsecret.txt",
      "/uploads/%2e%2e%2f%2e%2e%2fsecret.txt",
      "/uploads/..%5C..%5Csecret.txt",
      "/uploads/%2e%2e",
      "/uploads/.part-deadbeef",
      "/uploads/link.txt",
      "/uploads/sub.d",
      "/uploads/nothing.txt",
    ];
    for (const path of paths) {
      const res = await rawRequest(url, { path });
      assert.notEqual(res.status, 200, path);
      assert.ok(!res.body.includes("top secret") && !res.body.includes("half an upload"), path);
    }
    const raw = await rawRequest(url, { path: "/uploads/../../secret.txt" });
    assert.ok(!raw.body.includes("top secret"));
    assert.equal((await rawRequest(url, { path: "/uploads/ok.txt" })).body, "fine");
    assert.ok(existsSync(join(dir, "link.txt")));
  });
});

describe("safeUploadName", () => {
  it("keeps one component of letters of any script, digits and ._-, without a leading dot or dash", () => {
    const cases: Array<[string, string]> = [
      ["../../etc/passwd", "passwd"],
      ["C:\\Users\\me\\notes.txt", "notes.txt"],
      [".bashrc", "bashrc"],
      ["-rf", "rf"],
      ["a b?*<>.txt", "a_b_.txt"],
      ["報告 2024.pdf", "報告_2024.pdf"],
      ["Ünïcödé-ﾃｽﾄ.md", "Ünïcödé-ﾃｽﾄ.md"],
      ["...", "upload"],
      ["", "upload"],
      ["run.EXE", "run.EXE.bin"],
      ["trailing.html.", "trailing.html.bin"],
      ["page.xht", "page.xht.bin"],
      ["legacy.htc", "legacy.htc.bin"],
      ["start.jnlp", "start.jnlp.bin"],
      ["disk.iso", "disk.iso.bin"],
      ["shortcut.settingcontent-ms", "shortcut.settingcontent-ms.bin"],
    ];
    for (const [raw, want] of cases) assert.equal(safeUploadName(raw), want, raw);
    const long = safeUploadName(`${"长".repeat(300)}.txt`);
    assert.ok(Buffer.byteLength(long) <= 150 && long.endsWith(".txt"));
    for (const [raw] of cases) assert.equal(safeUploadName(safeUploadName(raw)), safeUploadName(raw), "idempotent");
  });
});
