/**
 * What an adapter script can reach: not os, io or the file system, not other hosts, not the API key — and a
 * script that never finishes (even in ways the in-Lua hook cannot stop) fails its call at its limit while
 * the rest of the daemon runs on. Hostile scripts live in test/fixtures/adapters/.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, test } from "node:test";
import type { Logger } from "@homeagent/sdk";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { waitFor } from "../../test/fixtures/wait.js";
import type { CompletionRequest } from "../kernel/llm-spec.js";
import { LuaAdaptedProvider, type LuaAdaptedProviderOptions } from "./lua-provider.js";
import { ProviderError } from "./provider.js";

const fixture = (name: string) =>
  readFileSync(new URL(`../../test/fixtures/adapters/${name}.lua`, import.meta.url), "utf8");
const OPENAI = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
const KEY = "sk-sandbox-key";
const request: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }] };
const LIMIT_MS = 300;

let fake: FakeLLM;
/** Another server on this thread: an OpenAI-style model listing for http_get, and "pong" for liveness. */
let other: Server;
let otherUrl: string;

before(async () => {
  fake = await startFakeLLM();
  other = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.url === "/v1/models") return res.end(JSON.stringify({ data: [{ id: "served-model" }] }));
      if (req.url === "/ping") return res.end(JSON.stringify("pong"));
      res.end(JSON.stringify({ choices: [{ message: { content: "hello" }, finish_reason: "stop" }] }));
    });
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1`;
});
beforeEach(() => {
  fake.requests.length = 0;
});
after(async () => {
  await fake.close();
  await new Promise((resolve) => other.close(resolve));
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
    // Generous: the first call also starts the worker, on a machine that may be busy.
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
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
  const reply = await provider("openai", source, { baseUrl: otherUrl }).chat(request);
  assert.equal(reply.content, "hello from served-model (200, box)");
});

function logger(lines: string[]): Logger {
  const push = (line: string) => {
    lines.push(line);
  };
  return { debug: push, info: push, warn: push, error: push };
}

const say = (content: string): CompletionRequest => ({ model: "", messages: [{ role: "user", content }] });

for (const attack of ["gc", "tostring", "find", "loop", "coroutine", "pcall"]) {
  test(`a hostile adapter (${attack}) fails at its limit while the main thread runs on, then works again`, async () => {
    const logs: string[] = [];
    const p = provider("hostile", fixture("hostile"), { timeoutMs: LIMIT_MS, log: logger(logs) });
    assert.equal((await p.chat(say("before"))).content, "ok");
    const events: string[] = [];
    const hostile = p.chat(say(attack)).then(
      () => events.push("hostile call answered"),
      (err: unknown) => {
        events.push("hostile call failed");
        return err;
      },
    );
    await waitFor(() => logs.includes(`adapter hostile: attack ${attack}`), "the attack to start");
    const started = performance.now();
    const pong = await (await fetch(otherUrl.replace("/v1", "/ping"))).json();
    events.push(`other server answered ${pong}`);
    await new Promise((resolve) => setImmediate(resolve));
    events.push("main thread tick");
    const err = await hostile;
    const ms = performance.now() - started;
    assert.deepEqual(events, ["other server answered pong", "main thread tick", "hostile call failed"]);
    assert.ok(err instanceof ProviderError && err.kind === "fatal", String(err));
    assert.equal(
      err.message,
      `adapter hostile (source box) could not build the request: lua: adapter hostile exceeded ${LIMIT_MS} ms`,
    );
    // Soon after the limit: far from the 14 s string.find takes, or forever for the others.
    assert.ok(ms < LIMIT_MS + 5000, `failed ${ms} ms after the attack began`);
    assert.equal((await p.chat(say("after"))).content, "ok", "a fresh worker serves the next request");
    assert.equal(fake.requests.length, 2, "the hostile request was never sent");
    await p.close();
  });
}

test("a caller that aborts stops waiting for an adapter stuck in Lua: aborted at once, not at the limit", async () => {
  const logs: string[] = [];
  const p = provider("hostile", fixture("hostile"), { timeoutMs: 60_000, log: logger(logs) });
  const abort = new AbortController();
  const events: string[] = [];
  const stuck = p.chat(say("loop"), { signal: abort.signal }).catch((err: unknown) => {
    events.push("call rejected");
    return err;
  });
  await waitFor(() => logs.includes("adapter hostile: attack loop"), "the attack to start");
  events.push("aborted");
  abort.abort(new Error("homed is shutting down"));
  const err = await stuck;
  assert.deepEqual(events, ["aborted", "call rejected"]);
  assert.ok(err instanceof ProviderError && err.kind === "aborted", String(err));
  await p.close();
});
