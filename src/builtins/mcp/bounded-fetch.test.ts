/**
 * The HTTP transports' fetch against a real server on 127.0.0.1: an answer over the limit fails its stream
 * (a JSON body counted whole, an SSE stream per event), while a long stream of small events passes.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { boundedFetch } from "./bounded-fetch.js";

const LIMIT = 64 * 1024;
/** 200 KB in all, in events of 2 KB. */
const manyEvents = Array.from({ length: 100 }, (_, i) => `data: ${"z".repeat(2_000)}${i}\n\n`).join("");
let server: Server;
let base: string;

before(async () => {
  server = createServer((req, res) => {
    if (req.url === "/big.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`"${"x".repeat(LIMIT * 2)}"`);
    } else if (req.url === "/endless-event") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${"y".repeat(LIMIT * 2)}`);
    } else {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(manyEvents);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test("an answer or an event over the limit fails; many small events pass", async () => {
  const fetch = boundedFetch(LIMIT);
  await assert.rejects((await fetch(`${base}/big.json`)).text(), /sent an answer over 64 KB; it was cut off/);
  await assert.rejects((await fetch(`${base}/endless-event`)).text(), /sent one event over/);
  const events = await (await fetch(`${base}/many-events`)).text();
  assert.equal(events, manyEvents);
});
