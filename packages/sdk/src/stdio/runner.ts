/**
 * Entry of a `plugin.js` subprocess: `node --experimental-detect-module runner.js <absolute path of
 * plugin.js>`. The plugin imports `@homeagent/sdk` like any plugin; the daemon links that name to its own SDK
 * in `<data>/plugins/node_modules`, so the plugin, its proxy SDK and the protocol are one version. The
 * module's default export (definePlugin's result, or a plain `{name, start, stop}`) is then served over
 * stdin/stdout. Imported rather than run, this module only exports the runtime.
 */
import { realpathSync } from "node:fs";
import { isAbsolute } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runStdioPlugin, type StdioPlugin } from "./runtime.js";
import { guardStdout } from "./stdout-guard.js";
import { startParentWatchdog } from "./watchdog.js";

export { runStdioPlugin, SDK_VERSION, type StdioIO, type StdioPlugin } from "./runtime.js";

/** Exit code of a runner given no usable plugin (before the handshake, so the daemon reports a failed start). */
export const EXIT_NO_PLUGIN = 2;

function fail(message: string, code = EXIT_NO_PLUGIN): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function isPlugin(value: unknown): value is StdioPlugin {
  if (typeof value !== "object" || value === null) return false;
  const p = value as Record<string, unknown>;
  return typeof p.name === "string" && p.name !== "" && typeof p.start === "function";
}

async function main(entry: string | undefined): Promise<void> {
  if (!entry || !isAbsolute(entry)) fail("usage: node runner.js <absolute path of plugin.js>");
  // Before the plugin's own top-level code runs: it may log, or loop.
  guardStdout();
  startParentWatchdog();
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(entry).href)) as { default?: unknown };
  } catch (err) {
    fail(`cannot load ${entry}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, 1);
  }
  if (!isPlugin(mod.default)) {
    fail(
      `${entry} has no plugin as its default export; end it with ` +
        '`export default definePlugin({ name: "<plugin name>", start(sdk) { … } })` (definePlugin from "@homeagent/sdk")',
    );
  }
  await runStdioPlugin(mod.default);
}

function isMain(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isMain()) {
  main(process.argv[2]).catch((err: unknown) =>
    fail(`plugin runner failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, 1),
  );
}
