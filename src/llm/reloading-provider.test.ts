import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
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
