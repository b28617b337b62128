/**
 * Entry of a `plugin.js` subprocess: `node runner.js <absolute path of plugin.js>`. The plugin imports
 * `@homeagent/sdk` like any plugin, but its directory has no node_modules: a resolve hook points that name
 * (and its subpaths) at this very SDK, so the plugin, its proxy SDK and the protocol are one version. The
 * module's default export (definePlugin's result, or a plain `{name, start, stop}`) is then served over
 * stdin/stdout. Imported rather than run, this module only exports the runtime.
 */
import { realpathSync } from "node:fs";
import { register } from "node:module";
import { dirname, isAbsolute } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runStdioPlugin, type StdioPlugin } from "./runtime.js";
import { guardStdout } from "./stdout-guard.js";
import { startParentWatchdog } from "./watchdog.js";

export { runStdioPlugin, SDK_VERSION, type StdioIO, type StdioPlugin } from "./runtime.js";

/** Exit code of a runner that was given no usable plugin: a broken install, not a crash to restart. */
export const EXIT_NO_PLUGIN = 2;

/**
 * Resolves `@homeagent/sdk[/…]` as if imported from the runner: the SDK package refers to itself by name,
 * so its own "exports" (and the process's conditions) pick the files. And the plugin's own .js files are
 * ES modules when their syntax says so, even under a loader (tsx, in development) that would take a .js
 * file without `"type": "module"` for CommonJS: the check is Node's own (does it compile as CommonJS?).
 */
const HOOK = `
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compileFunction } from "node:vm";
let parentURL;
let pluginDir;
export function initialize(data) {
  parentURL = data.parentURL;
  pluginDir = data.pluginDir;
}
export function resolve(specifier, context, next) {
  if (specifier === "@homeagent/sdk" || specifier.startsWith("@homeagent/sdk/")) {
    return next(specifier, { ...context, parentURL });
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (loaded.format !== "commonjs" || !url.startsWith(pluginDir) || !url.endsWith(".js")) return loaded;
  if (url.includes("/node_modules/") || !isModuleSyntax(readFileSync(fileURLToPath(url), "utf8"))) return loaded;
  return next(url, { ...context, format: "module" });
}
function isModuleSyntax(source) {
  try {
    compileFunction(source, ["exports", "require", "module", "__filename", "__dirname"]);
    return false;
  } catch (err) {
    return err instanceof SyntaxError && /\\b(import|export|await)\\b/.test(err.message);
  }
}
`;

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
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`, {
    parentURL: import.meta.url,
    data: { parentURL: import.meta.url, pluginDir: `${pathToFileURL(dirname(entry)).href}/` },
  });
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
