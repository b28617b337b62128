/**
 * Adapter scripts live in `<data>/adapters/*.lua` and the libraries they import() in
 * `<data>/adapters/lib/*.lua`, so users can edit both. The bundled ones are copied there on start only when
 * absent: an edited file is never overwritten. Lua cannot open files; the host reads libraries here and
 * hands their text to the VM.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isName, NAME_RULE } from "../config/validate.js";
import { HomeAgentError } from "../util/errors.js";

// Next to this module both under tsx (src/llm/adapters/) and compiled (dist/llm/adapters/, copied by the build).
const BUNDLED_DIR = fileURLToPath(new URL("./adapters/", import.meta.url));
const BUNDLED_LIB_DIR = join(BUNDLED_DIR, "lib");

export function adaptersDir(dataDir: string): string {
  return join(dataDir, "adapters");
}

export function librariesDir(dataDir: string): string {
  return join(adaptersDir(dataDir), "lib");
}

/**
 * Copies each bundled adapter and library missing from `<dataDir>/adapters/`; returns what it copied,
 * adapters by name and libraries as `lib/<name>`.
 */
export function installBundledAdapters(dataDir: string): string[] {
  return [
    ...copyMissing(BUNDLED_DIR, adaptersDir(dataDir), ""),
    ...copyMissing(BUNDLED_LIB_DIR, librariesDir(dataDir), "lib/"),
  ];
}

/** The rule of a source's `adapter` setting, so that every name a source may name is also a file name. */
export function isAdapterName(name: string): boolean {
  return isName(name);
}

/** Throws adapter_name_invalid unless `name` is an adapter name; returns `<dataDir>/adapters/<name>.lua`. */
export function adapterFile(dataDir: string, name: string): string {
  if (!isAdapterName(name)) {
    const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
    throw new HomeAgentError({
      code: "adapter_name_invalid",
      message: `invalid adapter name ${shown}: use ${NAME_RULE}`,
    });
  }
  return join(adaptersDir(dataDir), `${name}.lua`);
}

/** The text of a shipped adapter as shipped, or undefined when none has that name. */
export function bundledAdapterSource(name: string): string | undefined {
  if (!isAdapterName(name)) return undefined;
  const file = join(BUNDLED_DIR, `${name}.lua`);
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

/** The text of `<dataDir>/adapters/<name>.lua`. */
export function loadAdapterSource(dataDir: string, name: string): string {
  const file = adapterFile(dataDir, name);
  const dir = adaptersDir(dataDir);
  if (!existsSync(file)) {
    const available = luaNames(dir);
    throw new HomeAgentError({
      code: "adapter_not_found",
      message:
        `no adapter named ${name} in ${dir} (available: ${available.join(", ") || "none"}); ` +
        `put ${name}.lua there or choose one of those`,
    });
  }
  return readFileSync(file, "utf8");
}

/** The libraries adapters may import(): name → text of `<dataDir>/adapters/lib/<name>.lua`. */
export function loadAdapterLibraries(dataDir: string): Record<string, string> {
  return readLibraries(librariesDir(dataDir));
}

let bundledLibraries: Record<string, string> | undefined;

/** The libraries the bundled adapters were written against, as shipped. */
export function bundledAdapterLibraries(): Record<string, string> {
  bundledLibraries ??= readLibraries(BUNDLED_LIB_DIR);
  return bundledLibraries;
}

/** The names of the `.lua` files in `dir`, sorted. */
export function luaNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".lua"))
    .map((f) => f.slice(0, -".lua".length))
    .sort();
}

function readLibraries(dir: string): Record<string, string> {
  const libraries: Record<string, string> = {};
  for (const name of luaNames(dir)) libraries[name] = readFileSync(join(dir, `${name}.lua`), "utf8");
  return libraries;
}

function copyMissing(from: string, to: string, prefix: string): string[] {
  mkdirSync(to, { recursive: true });
  const copied: string[] = [];
  for (const name of luaNames(from)) {
    const dest = join(to, `${name}.lua`);
    if (existsSync(dest)) continue;
    // Not copyFileSync: it copies the bundled file's mode, and files in the data dir are private (0600).
    writeFileSync(dest, readFileSync(join(from, `${name}.lua`)), { mode: 0o600 });
    copied.push(prefix + name);
  }
  return copied;
}
