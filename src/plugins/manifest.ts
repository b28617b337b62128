/**
 * Reading one external plugin directory, `<data>/plugins/<name>/`: its plugin.json (bounded, validated,
 * unknown keys ignored) and its entry file (`plugin.bin`, any executable, before `plugin.js`, run with the
 * daemon's node), with the entry's SHA-256 so a reload can tell a changed plugin from an unchanged one.
 * Everything wrong is refused here, with what to fix, before any process is started.
 */
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { access, constants, type FileHandle, lstat, open, realpath, stat } from "node:fs/promises";
import { basename, join, sep } from "node:path";
import { CAPABILITIES, type Capability } from "@homeagent/sdk";
import { requirePluginName } from "../config/plugin-settings.js";
import { errorMessage } from "../util/errors.js";
import { isObject } from "../util/object.js";
import { withinTime } from "../util/time-limit.js";
import { VERSION } from "../version.js";
import { checkDeclared } from "./capabilities.js";
import { PluginLoadError } from "./errors.js";

export const MANIFEST_FILE = "plugin.json";
/** A manifest is a few hundred bytes; anything near this is not one. */
export const MAX_MANIFEST_BYTES = 64 * 1024;
/** In dispatch order: the first one present is the entry. */
export const ENTRY_FILES = { bin: "plugin.bin", js: "plugin.js" } as const;

export type EntryKind = keyof typeof ENTRY_FILES;

/** plugin.json, as inventory §8.2 names its fields (camelCase here), plus capabilities and critical. */
export interface Manifest {
  name: string;
  nameZh?: string;
  nameEn?: string;
  version?: string;
  description?: string;
  author?: string;
  license?: string;
  homepage?: string;
  repository?: string;
  entry?: string;
  platforms?: string[];
  minVersion?: string;
  tags?: string[];
  deprecated?: boolean;
  /** Services the web UI may reverse-proxy; kept as written for the web UI issue. */
  proxies?: unknown[];
  /** Declared ones, or ["core"] when the manifest names none (never unrestricted). */
  capabilities: Capability[];
  critical: boolean;
}

export interface PluginEntry {
  kind: EntryKind;
  /** Absolute path of plugin.bin / plugin.js. */
  path: string;
  sha256: string;
}

export interface LoadedPlugin {
  dir: string;
  manifest: Manifest;
  entry: PluginEntry;
  /** SHA-256 of plugin.json: a changed manifest (e.g. new capabilities) reloads the plugin too. */
  manifestSha256: string;
}

const STRING_FIELDS = {
  name_zh: "nameZh",
  name_en: "nameEn",
  version: "version",
  description: "description",
  author: "author",
  license: "license",
  homepage: "homepage",
  repository: "repository",
  entry: "entry",
  min_version: "minVersion",
} as const;

/**
 * Reads and checks `dir`; throws PluginLoadError (or the capability error) saying what to fix. `timeoutMs`:
 * a read that takes longer (a hung file system) fails, so the plugin's start is bounded from its first step.
 */
export function loadPluginDir(dir: string, timeoutMs?: number): Promise<LoadedPlugin> {
  if (timeoutMs === undefined) return loadNow(dir);
  return withinTime(
    loadNow(dir),
    timeoutMs,
    () => new PluginLoadError(dir, `reading it took over ${timeoutMs} ms; is its file system hung?`),
  );
}

async function loadNow(dir: string): Promise<LoadedPlugin> {
  const bytes = await readManifest(dir);
  const manifest = parseManifest(dir, bytes);
  checkRuns(dir, manifest);
  const entry = await findEntry(dir, manifest.entry);
  return { dir, manifest, entry, manifestSha256: sha256(bytes) };
}

async function readManifest(dir: string): Promise<Buffer> {
  const path = join(dir, MANIFEST_FILE);
  let file: FileHandle;
  try {
    file = await openRegular(dir, path, MANIFEST_FILE);
  } catch (err) {
    if (err instanceof PluginLoadError) throw err;
    throw new PluginLoadError(dir, `cannot read ${MANIFEST_FILE} (${errorMessage(err)}); every plugin needs one`, err);
  }
  try {
    const { size } = await file.stat();
    if (size > MAX_MANIFEST_BYTES) {
      throw new PluginLoadError(dir, `${MANIFEST_FILE} is ${size} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit`);
    }
    // One byte more than allowed shows a file that grew since stat().
    const buffer = Buffer.alloc(MAX_MANIFEST_BYTES + 1);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_MANIFEST_BYTES) {
      throw new PluginLoadError(dir, `${MANIFEST_FILE} is over the ${MAX_MANIFEST_BYTES}-byte limit`);
    }
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

export function parseManifest(dir: string, bytes: Buffer): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString("utf8"));
  } catch (err) {
    throw new PluginLoadError(dir, `${MANIFEST_FILE} is not valid JSON: ${errorMessage(err)}`, err);
  }
  if (!isObject(raw)) throw new PluginLoadError(dir, `${MANIFEST_FILE} must hold a JSON object`);
  const field = (key: string, want: string) =>
    new PluginLoadError(dir, `${MANIFEST_FILE} field "${key}" must be ${want}`);

  const name = raw.name;
  if (typeof name !== "string") throw field("name", "a string, the directory's name");
  const dirName = basename(dir);
  if (name !== dirName) {
    throw new PluginLoadError(
      dir,
      `${MANIFEST_FILE} names the plugin ${JSON.stringify(name)} but its directory is ${JSON.stringify(dirName)}; make them the same`,
    );
  }
  try {
    requirePluginName(name);
  } catch (err) {
    throw new PluginLoadError(dir, errorMessage(err), err);
  }

  const manifest: Manifest = { name, capabilities: ["core"], critical: false };
  for (const [key, prop] of Object.entries(STRING_FIELDS)) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "string") throw field(key, "a string");
    manifest[prop] = value;
  }
  for (const key of ["platforms", "tags"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (!isStringList(value)) throw field(key, "a list of strings");
    manifest[key] = value;
  }
  for (const [key, prop] of [
    ["deprecated", "deprecated"],
    ["critical", "critical"],
  ] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw field(key, "true or false");
    manifest[prop] = value;
  }
  if (raw.proxies !== undefined) {
    if (!Array.isArray(raw.proxies)) throw field("proxies", "a list");
    manifest.proxies = raw.proxies;
  }
  if (raw.capabilities !== undefined) {
    if (!isStringList(raw.capabilities)) throw field("capabilities", `a list of capability names (${CAPABILITIES})`);
    checkDeclared(name, raw.capabilities);
    manifest.capabilities = [...new Set(raw.capabilities as Capability[])];
  }
  return manifest;
}

/** Platforms and minimum version: refused up front rather than failing in some obscure way later. */
function checkRuns(dir: string, manifest: Manifest): void {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  if (manifest.platforms && manifest.platforms.length > 0 && !manifest.platforms.includes(platform)) {
    throw new PluginLoadError(dir, `the plugin runs on ${manifest.platforms.join(", ")}, not on ${platform}`);
  }
  if (manifest.minVersion && compareVersions(VERSION, manifest.minVersion) < 0) {
    throw new PluginLoadError(dir, `the plugin needs homed ${manifest.minVersion} or later; this is ${VERSION}`);
  }
}

/** Numeric dotted versions ("0.2.10" > "0.2.9"); a leading "v" and any "-pre" tail are ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) =>
    v
      .replace(/^v/, "")
      .split("-")[0]
      .split(".")
      .map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

async function findEntry(dir: string, declared: string | undefined): Promise<PluginEntry> {
  const kinds = Object.keys(ENTRY_FILES) as EntryKind[];
  let candidates = kinds;
  if (declared !== undefined) {
    const kind = kinds.find((k) => ENTRY_FILES[k] === declared);
    if (!kind) {
      throw new PluginLoadError(
        dir,
        `entry ${JSON.stringify(declared)} is not supported; use ${Object.values(ENTRY_FILES).join(" or ")}`,
      );
    }
    candidates = [kind];
  }
  for (const kind of candidates) {
    const path = join(dir, ENTRY_FILES[kind]);
    const link = await lstat(path).catch(() => undefined);
    if (!link) continue;
    if (link.isSymbolicLink()) await requireInside(dir, path, ENTRY_FILES[kind]);
    const file = await openRegular(dir, path, ENTRY_FILES[kind]);
    if (kind === "bin")
      await requireExecutable(dir, path).catch(async (err) => {
        await file.close();
        throw err;
      });
    return { kind, path, sha256: await fileSha256(file) };
  }
  const wanted = candidates.map((k) => ENTRY_FILES[k]).join(" or ");
  throw new PluginLoadError(dir, `no entry file: add ${wanted} (an executable, or JavaScript run with node)`);
}

async function requireExecutable(dir: string, path: string): Promise<void> {
  try {
    await access(path, constants.X_OK);
  } catch (err) {
    throw new PluginLoadError(dir, `${ENTRY_FILES.bin} is not executable: run chmod +x ${path}`, err);
  }
}

/**
 * Opens `path` for reading if it is a regular file (a symlink to one counts). Anything else is refused
 * before it is opened: opening a FIFO blocks until someone writes to it, pinning a thread of libuv's small
 * pool for good. Opened without blocking and checked again, in case it was swapped since the stat.
 */
async function openRegular(dir: string, path: string, what: string): Promise<FileHandle> {
  const notRegular = (found: Stats) =>
    new PluginLoadError(dir, `${what} is ${fileKind(found)}, not a regular file; replace it with a plain file`);
  const found = await stat(path);
  if (!found.isFile()) throw notRegular(found);
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const opened = await file.stat();
  if (opened.isFile()) return file;
  await file.close();
  throw notRegular(opened);
}

function fileKind(found: Stats): string {
  if (found.isFIFO()) return "a FIFO";
  if (found.isDirectory()) return "a directory";
  if (found.isSocket()) return "a socket";
  if (found.isCharacterDevice() || found.isBlockDevice()) return "a device";
  return "something else";
}

/** An entry that is a symlink must point into the plugin's own directory: the plugin is what is in it. */
async function requireInside(dir: string, path: string, what: string): Promise<void> {
  const [target, home] = await Promise.all([realpath(path), realpath(dir)]).catch((err: unknown) => {
    throw new PluginLoadError(dir, `${what} is a symlink that cannot be followed (${errorMessage(err)})`, err);
  });
  if (!target.startsWith(home + sep)) {
    throw new PluginLoadError(
      dir,
      `${what} is a symlink to ${target}, outside the plugin's directory; copy the file into ${dir} instead`,
    );
  }
}

/** SHA-256 of what `file` holds; closes it. */
function fileSha256(file: FileHandle): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    file
      .createReadStream()
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}
