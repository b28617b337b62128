/**
 * What an adapter script can reach: not os, io or the file system, not other hosts, not the API key — and a
 * script stuck in a loop is stopped. Hostile scripts live in test/fixtures/adapters/.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, beforeEach, test } from "node:test";
import { Worker } from "node:worker_threads";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { LuaAdaptedProvider, type LuaAdaptedProviderOptions } from "./lua-provider.js";
import { type CompletionRequest, ProviderError } from "./provider.js";

const fixture = (name: string) =>
  readFileSync(new URL(`../../test/fixtures/adapters/${name}.lua`, import.meta.url), "utf8");
const OPENAI = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
const KEY = "sk-sandbox-key";
const request: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }] };

// An OpenAI-style server in a worker thread: http_get blocks this thread, so a server here could not answer.
const SERVER = `
const { createServer } = require("node:http");
const { parentPort } = require("node:worker_threads");
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    if (req.url === "/v1/models") return res.end(JSON.stringify({ data: [{ id: "served-model" }] }));
    res.end(JSON.stringify({ choices: [{ message: { content: "hello" }, finish_reason: "stop" }] }));
  });
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
`;

let fake: FakeLLM;
let worker: Worker;
let workerUrl: string;

before(async () => {
  fake = await startFakeLLM();
  worker = new Worker(SERVER, { eval: true });
  workerUrl = `http://127.0.0.1:${await new Promise<number>((resolve) => worker.once("message", resolve))}/v1`;
});
beforeEach(() => {
  fake.requests.length = 0;
});
after(async () => {
  await fake.close();
  await worker.terminate();
});

function provider(adapterName: string, adapterSource: string, over: Partial<LuaAdaptedProviderOptions> = {}) {
  return new LuaAdaptedProvider({
    sourceName: "box",
    adapterName,
    adapterSource,
    baseUrl: fake.url,
    apiKey: KEY,
    model: "m",
    ...over,
  });
}

test("a hostile adapter finds no os, io, file system, bytecode loader, other host or API key", async () => {
  await provider("escape", fixture("escape")).chat(request);
  assert.deepEqual(fake.requests[0].body.probes, {
    os: "nil",
    io: "nil",
    require: "nil",
    dofile: "nil",
    loadfile: "nil",
    package: "nil",
    debug: "nil",
    collectgarbage: "nil",
    string_dump: "nil",
    env_os: "nil",
    g_os: "nil",
    loaded_os: "nil",
    bytecode: "error: attempt to load a binary chunk (mode is 't')",
    string_metatable: "boolean",
    read_file: "error: http_get: only http and https URLs can be fetched, not file:",
    other_host: `error: http_get: host 127.0.0.2:9 is not allowed for adapter escape (allowed: ${new URL(fake.url).host})`,
    key_seen: false,
  });
  assert.equal(JSON.stringify(fake.requests[0].body).includes(KEY), false);
});

test("an adapter stuck in a loop is stopped at its time limit, every time", async () => {
  const p = provider("spin", fixture("spin"), { timeoutMs: 200 });
  for (let i = 0; i < 2; i++) {
    const started = Date.now();
    const err = await p.chat(request).catch((e) => e);
    assert.ok(err instanceof ProviderError && err.kind === "fatal", String(err));
    assert.equal(
      err.message,
      "adapter spin (source box) could not build the request: lua: adapter spin exceeded 200 ms",
    );
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
  }
  assert.equal(fake.requests.length, 0);
});

test("http_get reaches the source's own host; `source` tells the adapter where that is", async () => {
  const source = OPENAI.replace(
    /return adapter\s*$/,
    `local inner = adapter.transform_response
function adapter.transform_response(body)
  local out = json.decode(inner(body))
  local models, status = http_get(source.base_url .. "/models", { accept = "application/json" })
  out.content = out.content .. " from " .. json.decode(models).data[1].id .. " (" .. status .. ", " .. source.name .. ")"
  return json.encode(out)
end
return adapter`,
  );
  const reply = await provider("openai", source, { baseUrl: workerUrl }).chat(request);
  assert.equal(reply.content, "hello from served-model (200, box)");
});
