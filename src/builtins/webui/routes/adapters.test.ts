/**
 * `/api/v1/adapters` over real HTTP against a real daemon: list, read, save (checked in the Lua sandbox
 * before it is written), delete, and the refusals (invalid Lua, endless scripts, bad names, in use, bundled,
 * too large).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startWebDaemon, type WebDaemon } from "../../../../test/fixtures/webui.js";

let w: WebDaemon;
before(async () => {
  w = await startWebDaemon({ webuiOnly: true });
});
after(() => w.stop());

test("the bundled adapters are listed with who uses them, and can be read", async () => {
  const list = await w.json("GET", "/api/v1/adapters");
  assert.equal(list.status, 200);
  const openai = list.body.adapters.find((a: { name: string }) => a.name === "openai");
  assert.equal(openai.bundled, true);
  assert.deepEqual(openai.usedBy, ["env"]);
  const got = await w.json("GET", "/api/v1/adapters/openai");
  assert.equal(got.status, 200);
  assert.equal(got.body.info.name, "openai");
  assert.ok(got.body.code.length > 100);
  assert.equal((await w.json("GET", "/api/v1/adapters/nope")).status, 404);
});

test("a valid script is saved and deleted; an invalid one is 422 and not saved", async () => {
  const { body } = await w.json("GET", "/api/v1/adapters/openai");
  const saved = await w.json("PUT", "/api/v1/adapters/my-copy", { code: body.code });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  assert.equal(saved.body.name, "my-copy");
  assert.equal(saved.body.bundled, false);
  assert.equal((await w.json("GET", "/api/v1/adapters/my-copy")).body.code, body.code);
  const invalid = await w.json("PUT", "/api/v1/adapters/broken", { code: "this is not lua (" });
  assert.equal(invalid.status, 422);
  assert.equal(invalid.body.error.code, "adapter_invalid");
  assert.equal((await w.json("GET", "/api/v1/adapters/broken")).status, 404);
  const deleted = await w.json("DELETE", "/api/v1/adapters/my-copy");
  assert.deepEqual([deleted.status, deleted.body], [200, { deleted: "my-copy" }]);
  assert.equal((await w.json("DELETE", "/api/v1/adapters/my-copy")).status, 404);
});

test("refusals: a bad name 400, a bundled or used adapter 409, a missing script 400, too large 413", async () => {
  const badName = await w.json("PUT", "/api/v1/adapters/bad.name", { code: "return {}" });
  assert.equal(badName.status, 400);
  const bundled = await w.json("DELETE", "/api/v1/adapters/openai");
  assert.equal(bundled.status, 409);
  assert.match(bundled.body.error.code, /^adapter_(bundled|in_use)$/);
  assert.equal((await w.json("PUT", "/api/v1/adapters/x", {})).status, 400);
  assert.equal((await w.json("PUT", "/api/v1/adapters/x", { code: 7 })).status, 400);
  const big = await w.json("PUT", "/api/v1/adapters/x", { code: `-- ${"x".repeat(300 * 1024)}` });
  assert.equal(big.status, 413);
});

test("hostile scripts and names: an endless loop is stopped by the sandbox while the daemon keeps answering", async () => {
  const endless = w.json("PUT", "/api/v1/adapters/loopy", { code: "while true do end" });
  const status = await w.json("GET", "/api/v1/status");
  assert.equal(status.status, 200, "answered while the script runs");
  const refused = await endless;
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error.code, "adapter_invalid");
  assert.match(refused.body.error.message, /exceeded \d+ ms/);
  assert.equal((await w.json("GET", "/api/v1/adapters/loopy")).status, 404, "nothing was saved");
  const outside = await w.json("PUT", `/api/v1/adapters/${encodeURIComponent("../../x")}`, { code: "return {}" });
  assert.equal(outside.status, 400);
  assert.equal(outside.body.error.code, "adapter_name_invalid");
  const huge = await w.json("PUT", "/api/v1/adapters/x", { code: `-- ${"x".repeat(3 * 1024 * 1024)}` });
  assert.equal(huge.status, 413);
  assert.equal(huge.body.error.code, "body_too_large");
});
