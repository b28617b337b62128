// Re-takes the README's picture of the Chat tab: runs the chat browser test with HOMEAGENT_SCREENSHOTS set
// (the tests take no screenshot otherwise) and copies the one the README shows into docs/screenshots/.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "ha-screenshots-"));
const run = spawnSync(process.execPath, ["scripts/test.mjs", "browser", "test/browser/chat.test"], {
  stdio: "inherit",
  env: { ...process.env, HOMEAGENT_SCREENSHOTS: dir },
});
if (run.status !== 0) process.exit(run.status ?? 1);
copyFileSync(join(dir, "chat-tool-done.png"), "docs/screenshots/chat.png");
console.log(`docs/screenshots/chat.png updated (every screenshot of the run is in ${dir})`);
