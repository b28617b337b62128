/**
 * Adapter scripts live in `<data>/adapters/*.lua` so users can edit them. The bundled ones are copied
 * there on start only when absent: an edited file is never overwritten.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// Next to this module both under tsx (src/llm/adapters/) and compiled (dist/llm/adapters/, copied by the build).
const BUNDLED_DIR = fileURLToPath(new URL("./adapters/", import.meta.url));

const ADAPTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export function adaptersDir(dataDir: string): string {
  return join(dataDir, "adapters");
}

/** Copies each bundled adapter missing from `<dataDir>/adapters/`; returns the names it copied. */
export function installBundledAdapters(dataDir: string): string[] {
  const target = adaptersDir(dataDir);
  mkdirSync(target, { recursive: true });
  const copied: string[] = [];
  for (const file of luaFiles(BUNDLED_DIR)) {
    const dest = join(target, file);
    if (existsSync(dest)) continue;
    copyFileSync(join(BUNDLED_DIR, file), dest);
    copied.push(file.slice(0, -".lua".length));
  }
  return copied;
}

/** The text of `<dataDir>/adapters/<name>.lua`. */
export function loadAdapterSource(dataDir: string, name: string): string {
  if (!ADAPTER_NAME.test(name)) {
    throw new Error(`invalid adapter name ${JSON.stringify(name)}: use letters, digits, "-" and "_" only`);
  }
  const dir = adaptersDir(dataDir);
  const file = join(dir, `${name}.lua`);
  if (!existsSync(file)) {
    const available = luaFiles(dir).map((f) => f.slice(0, -".lua".length));
    throw new Error(
      `no adapter named ${name} in ${dir} (available: ${available.join(", ") || "none"}); ` +
        `put ${name}.lua there or choose one of those`,
    );
  }
  return readFileSync(file, "utf8");
}

function luaFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".lua"))
    .sort();
}
