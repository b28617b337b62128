// Runs every *.test.ts under src/, test/, packages/ and web/ (the dashboard's pure logic) with node's test
// runner (Node 20 has no test globs).
// Extra arguments are passed on, e.g. `npm test -- --test-name-pattern=interrupt`.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name === "dist") return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? find(path) : e.name.endsWith(".test.ts") ? [path] : [];
  });
}

const files = ["src", "test", "packages", "web"].flatMap(find).sort();
const args = [
  "--conditions=development",
  "--import",
  "tsx",
  "--test",
  "--test-concurrency=2",
  ...process.argv.slice(2),
  ...files,
];
// Every daemon a test starts with the default plugins serves the web UI: on a free port, never the user's 8080.
const env = { HOMEAGENT_WEBUI_ADDR: "127.0.0.1:0", ...process.env };
const { status, signal } = spawnSync(process.execPath, args, { stdio: "inherit", env });
process.exit(status ?? (signal ? 1 : 0));
