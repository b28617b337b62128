/** Reading JSON bodies over real HTTP: the limit whatever Content-Length says, and bodies that are not plain UTF-8 JSON. */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { createMockSDK } from "@homeagent/sdk/test";
import { rawRequest } from "../../../test/fixtures/webui.js";
import { type RoutesServer, serveRoutes } from "../../../test/fixtures/webui-routes.js";
import { readJson } from "./body.js";
import type { RouteGroup } from "./context.js";

let server: RoutesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const echo: RouteGroup = (app) => {
  app.post("/echo", async (c) => c.json(await readJson(c, 1000)));
  return undefined;
};

/** Posts `body` as given; with `chunked`, without a Content-Length. */
async function send(body: Buffer | string, headers: Record<string, string> = {}, chunked = false) {
  server ??= await serveRoutes([echo], createMockSDK({ pluginName: "webui" }));
  const length: Record<string, string> = chunked
    ? { "Transfer-Encoding": "chunked" }
    : { "Content-Length": String(Buffer.byteLength(body)) };
  const res = await rawRequest(server.url, {
    method: "POST",
    path: "/echo",
    headers: { "Content-Type": "application/json", ...length, ...headers },
    body,
  });
  return { status: res.status, body: JSON.parse(res.body) };
}

describe("readJson", () => {
  it("gives the object, Chinese and all", async () => {
    assert.deepEqual(await send(JSON.stringify({ message: "你好，世界" })), {
      status: 200,
      body: { message: "你好，世界" },
    });
  });

  it("refuses a compressed body with 415 naming the encoding, not as broken JSON", async () => {
    const res = await send(gzipSync(JSON.stringify({ message: "hi" })), { "Content-Encoding": "gzip" });
    assert.equal(res.status, 415);
    assert.equal(res.body.error.code, "unsupported_content_encoding");
    assert.match(res.body.error.message, /gzip; send it uncompressed/);
    assert.equal((await send('{"a":1}', { "Content-Encoding": "identity" })).status, 200);
  });

  it("refuses bytes that are not UTF-8 instead of replacing them", async () => {
    const latin1 = Buffer.concat([Buffer.from('{"message":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await send(latin1);
    assert.equal(res.status, 400);
    assert.match(res.body.error.message, /not valid UTF-8/);
  });

  it("holds its limit whether the length is announced or the body comes chunked without one", async () => {
    const big = JSON.stringify({ message: "x".repeat(2000) });
    assert.equal((await send(big)).status, 413, "announced");
    assert.equal((await send(big, {}, true)).status, 413, "chunked");
    assert.equal((await send('{"a":1}', {}, true)).status, 200, "a small chunked body");
  });
});
