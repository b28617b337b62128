import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { installBundledAdapters } from "./adapters.js";
import type { Provider } from "./provider.js";
import { ReloadingProvider } from "./reloading-provider.js";

let dataDir: string;
before(() => {
  dataDir = mkdtempSync(join(tmpdir(), "homeagent-reload-"));
  installBundledAdapters(dataDir);
});
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** A ReloadingProvider whose providers answer with the openai_compat library they were built with. */
function reloading(logs: string[]) {
  let builds = 0;
  const provider = new ReloadingProvider({
    dataDir,
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
