// Re-takes the README's pictures of the Chat and Settings tabs: runs their browser tests with
// HOMEAGENT_SCREENSHOTS set (the tests take no screenshot otherwise) and copies the ones the README shows
// into docs/screenshots/.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "ha-screenshots-"));
const run = spawnSync(
  process.execPath,
  ["scripts/test.mjs", "browser", "test/browser/chat.test", "test/browser/settings.test"],
  {
    stdio: "inherit",
    env: { ...process.env, HOMEAGENT_SCREENSHOTS: dir },
  },
);
if (run.status !== 0) process.exit(run.status ?? 1);
copyFileSync(join(dir, "chat-tool-done.png"), "docs/screenshots/chat.png");
copyFileSync(join(dir, "settings-top.png"), "docs/screenshots/settings.png");
console.log(`docs/screenshots/chat.png and settings.png updated (every screenshot of the run is in ${dir})`);
