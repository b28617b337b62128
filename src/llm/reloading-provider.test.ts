/** ReloadingProvider: an adapter or library edited on disk rebuilds the provider; a replaced one closes once idle. */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { installBundledAdapters } from "./adapters.js";
import { type Provider, ProviderError } from "./provider.js";
import { ReloadingProvider } from "./reloading-provider.js";

let dataDir: string;
before(() => {
  dataDir = tempDir("homeagent-reload-");
  installBundledAdapters(dataDir);
});

/** A ReloadingProvider whose providers answer with the openai_compat library they were built with. */
function reloading(logs: string[], dir = dataDir) {
  let builds = 0;
  const provider = new ReloadingProvider({
    dataDir: dir,
    adapter: "openai",
    log: { debug() {}, info: (m) => logs.push(m), warn() {}, error() {} },
    build: (_, libraries): Provider => {
      builds++;
      return {
        name: "src",
        model: "m",
        chat: async () => ({
          content: libraries.openai_compat,
          reasoning_content: "",
          finish_reason: "stop",
          token_usage: null,
          tool_calls: [],
        }),
        chatStream: () => (async function* () {})(),
      };
    },
  });
  const answer = async () => (await provider.chat({ model: "", messages: [] })).content;
  return { answer, builds: () => builds };
}

test("editing or adding a library rebuilds the provider with the new text", async () => {
  const logs: string[] = [];
  const p = reloading(logs);
  await p.answer();
  await p.answer();
  assert.equal(p.builds(), 1, "unchanged files are not read again");
  writeFileSync(join(dataDir, "adapters", "lib", "openai_compat.lua"), "return { edited = true }");
  assert.equal(await p.answer(), "return { edited = true }");
  assert.deepEqual(logs, ["adapter openai: lib/openai_compat.lua changed on disk; source src uses the new version"]);
  writeFileSync(join(dataDir, "adapters", "lib", "mine.lua"), "return {}");
  await p.answer();
  assert.equal(p.builds(), 3);
  assert.match(logs[1], /lib\/mine\.lua changed on disk/);
});

test("an adapter removed from disk fails the next call with the reason, keeping the read error as cause", async () => {
  const dir = tempDir("homeagent-reload-gone-");
  installBundledAdapters(dir);
  const p = reloading([], dir);
  rmSync(join(dir, "adapters", "openai.lua"));
  await assert.rejects(p.answer(), (err: unknown) => {
    assert.ok(err instanceof ProviderError && err.kind === "fatal", String(err));
    assert.ok(err.cause instanceof Error, "the read error is kept, not only its text");
    assert.match(err.cause.message, /^no adapter named openai in .*; put openai\.lua there/);
    assert.equal(err.message, `adapter openai (source src): ${err.cause.message}`);
    return true;
  });
});

test("a replaced provider is closed once the calls it was serving have ended", async () => {
  const dir = tempDir("homeagent-reload-close-");
  installBundledAdapters(dir);
  const closed: number[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let builds = 0;
  const provider = new ReloadingProvider({
    dataDir: dir,
    adapter: "openai",
    build: () => {
      const version = ++builds;
      return {
        name: "src",
        model: "m",
        chat: async () => ({
          content: `v${version}`,
          reasoning_content: "",
          finish_reason: "stop",
          token_usage: null,
          tool_calls: [],
        }),
        async *chatStream() {
          yield { content: `v${version}`, reasoning_content: "", done: false, usage: null, tool_calls: [] };
          await gate;
        },
        close: () => closed.push(version),
      } as Provider;
    },
  });
  const stream = provider.chatStream({ model: "", messages: [] })[Symbol.asyncIterator]();
  assert.equal((await stream.next()).value?.content, "v1");
  writeFileSync(join(dir, "adapters", "openai.lua"), "-- edited\nreturn {}");
  assert.equal((await provider.chat({ model: "", messages: [] })).content, "v2");
  assert.deepEqual(closed, [], "version 1 is still streaming");
  release();
  assert.equal((await stream.next()).done, true);
  assert.deepEqual(closed, [1]);
  writeFileSync(join(dir, "adapters", "openai.lua"), "-- edited again\nreturn {}");
  assert.equal((await provider.chat({ model: "", messages: [] })).content, "v3");
  assert.deepEqual(closed, [1, 2], "an idle version is closed as soon as it is replaced");
});

test("close() closes the current version once its calls have ended", async () => {
  const dir = tempDir("homeagent-reload-close-");
  installBundledAdapters(dir);
  const closed: number[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const provider = new ReloadingProvider({
    dataDir: dir,
    adapter: "openai",
    build: () =>
      ({
        name: "src",
        model: "m",
        chat: async () => {
          throw new Error("not used");
        },
        async *chatStream() {
          yield { content: "v1", reasoning_content: "", done: false, usage: null, tool_calls: [] };
          await gate;
        },
        close: () => closed.push(1),
      }) as Provider,
  });
  const stream = provider.chatStream({ model: "", messages: [] })[Symbol.asyncIterator]();
  await stream.next();
  provider.close();
  assert.deepEqual(closed, [], "still streaming");
  release();
  assert.equal((await stream.next()).done, true);
  assert.deepEqual(closed, [1]);
});
