/** Asking a local server about its models stays bounded in size, not only in time. */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { waitFor } from "../../../test/fixtures/wait.js";
import { detectOllama, probeOpenAIModel } from "./local-models.js";

test("an endless model list is dropped at its size limit: unknown, at once, connection closed", {
  timeout: 15_000,
}, async () => {
  const closed: boolean[] = [];
  const server = createServer((_req, res) => {
    res.on("close", () => closed.push(!res.writableFinished));
    res.writeHead(200, { "content-type": "application/json" });
    const block = Buffer.alloc(64 * 1024, " ");
    res.write('{"models": [');
    const pump = () => {
      while (!res.destroyed && res.write(block));
      if (!res.destroyed) res.once("drain", pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    // The time limit alone would let it stream for 10 s (gigabytes over loopback).
    const started = Date.now();
    assert.equal(await detectOllama(url, { timeoutMs: 10_000 }), undefined);
    assert.deepEqual(await probeOpenAIModel(url, "m", { timeoutMs: 10_000 }), {});
    assert.ok(Date.now() - started < 8_000, "gave up at the size limit, not the time limit");
    await waitFor(() => closed.length === 2, "the server to see both requests closed");
    assert.deepEqual(closed, [true, true]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
