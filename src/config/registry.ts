/**
 * ConfigRegistry: the SQLite config center (inventory §7). Values are strings; definitions give them a type,
 * a default and a place in the settings page. Every write goes straight to the WAL (design principle 3), and
 * reads go to the database each time so the file stays the single source of truth.
 */
import fs from "node:fs";
import path from "node:path";
import type { ConfigEntry } from "@homeagent/sdk";
import Database from "better-sqlite3";
import { CORE_DEFS, type ConfigDef } from "./defaults.js";
import { parseDuration } from "./duration.js";

export type { ConfigDef };

export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface ConfigRegistryOptions {
  /** Source of the HOMEAGENT_* overlay, read once at open. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Where a throwing onChange listener is reported. Default: a process warning. */
  onListenerError?: (err: unknown, key: string) => void;
}

export interface LlmSourceConfig {
  name: string;
  adapter: string;
  baseUrl: string;
  model: string;
  apiKey: string;
  priority: number;
  maxConcurrent: number;
  contextWindow: number;
  thinkingEnabled: boolean;
}

export interface PluginSettings {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  list(): Record<string, string>;
}

export interface DisabledPlugin {
  name: string;
  /** Unix milliseconds. */
  disabledAt: number;
  disabledBy: string;
}

type ChangeListener = (key: string, value: string) => void;

const SOURCE_KEY = /^core\.llm\.sources\.([^.]+)\.[^.]+$/;
const PLUGIN_KEY = /^plugin\.[^.]+\..+$/;
/** The source defined entirely by HOMEAGENT_LLM_* variables. */
export const ENV_SOURCE = "env";

export class ConfigRegistry {
  private readonly defs = new Map<string, ConfigDef>();
  private readonly templates: ConfigDef[] = [];
  private readonly listeners = new Set<ChangeListener>();

  private constructor(
    private readonly db: Database.Database,
    /** key → [value, variable name]; these values win over stored ones. */
    private readonly envOverlay: Map<string, [string, string]>,
    private readonly onListenerError: (err: unknown, key: string) => void,
  ) {
    this.registerDefs(CORE_DEFS);
  }

  static open(file: string, opts: ConfigRegistryOptions = {}): ConfigRegistry {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    // FULL makes each committed write survive power loss, not just a process crash.
    db.pragma("synchronous = FULL");
    db.exec(`
      CREATE TABLE IF NOT EXISTS config (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS disabled_plugins (name TEXT PRIMARY KEY, disabled_at INTEGER, disabled_by TEXT);
    `);
    const report =
      opts.onListenerError ??
      ((err: unknown, key: string) =>
        process.emitWarning(`config onChange listener failed for ${key}: ${String(err)}`, "ConfigListenerWarning"));
    return new ConfigRegistry(db, envOverlay(opts.env ?? process.env), report);
  }

  /** Adds or replaces definitions (plugins add `plugin.<name>.*` defs when they load). */
  registerDefs(defs: ConfigDef[]): void {
    for (const def of defs) {
      if (def.type === "select" && !def.options?.length) {
        throw new ConfigError(`config def ${def.key}: a select needs options`);
      }
      const bad = invalidReason(def, def.default);
      if (bad) throw new ConfigError(`config def ${def.key}: default ${JSON.stringify(def.default)} ${bad}`);
      if (def.key.split(".").includes("*")) {
        const i = this.templates.findIndex((t) => t.key === def.key);
        if (i >= 0) this.templates[i] = def;
        else this.templates.push(def);
      } else {
        this.defs.set(def.key, def);
      }
    }
  }

  def(key: string): ConfigDef | undefined {
    const exact = this.defs.get(key);
    if (exact) return exact;
    const parts = key.split(".");
    return this.templates.find((t) => {
      const tp = t.key.split(".");
      return tp.length === parts.length && tp.every((p, i) => (p === "*" ? parts[i] !== "" : p === parts[i]));
    });
  }

  /** Effective value: environment overlay, else stored, else the def's default. */
  get(key: string): string | undefined {
    const env = this.envOverlay.get(key);
    if (env) return env[0];
    const row = this.db.prepare("SELECT value FROM config WHERE key = ?").get(key) as { value: string } | undefined;
    return row ? row.value : this.def(key)?.default;
  }

  getInt(key: string): number {
    const v = this.require(key);
    if (!/^[-+]?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
      throw new ConfigError(`config ${key} = ${JSON.stringify(v)} is not an integer; fix it with: set ${key} <number>`);
    }
    return Number(v);
  }

  getNumber(key: string): number {
    const v = this.require(key);
    const n = Number(v);
    if (v.trim() === "" || !Number.isFinite(n)) {
      throw new ConfigError(`config ${key} = ${JSON.stringify(v)} is not a number; fix it with: set ${key} <number>`);
    }
    return n;
  }

  getBool(key: string): boolean {
    const v = this.require(key);
    if (v !== "true" && v !== "false") {
      throw new ConfigError(`config ${key} = ${JSON.stringify(v)} is not true or false; fix it with: set ${key} true`);
    }
    return v === "true";
  }

  /** Milliseconds. */
  getDuration(key: string): number {
    const v = this.require(key);
    try {
      return parseDuration(v);
    } catch (err) {
      throw new ConfigError(`config ${key}: ${(err as Error).message}`);
    }
  }

  set(key: string, value: string): void {
    const def = this.def(key);
    if (!def && !PLUGIN_KEY.test(key)) {
      throw new ConfigError(
        key.startsWith("core.")
          ? `unknown config key ${key}; list the known keys with: config list core.`
          : `unknown config key ${key}; keys live under core.* or plugin.<name>.*`,
      );
    }
    const env = this.envOverlay.get(key);
    if (env) {
      // Storing it would have no effect while the variable is set; say so instead of silently ignoring it.
      throw new ConfigError(`config ${key} comes from the environment variable ${env[1]}; change or unset it there`);
    }
    const bad = def && invalidReason(def, value);
    if (bad) throw new ConfigError(`config ${key}: ${JSON.stringify(value)} ${bad}`);
    this.db
      .prepare("INSERT INTO config (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .run(key, value);
    this.notify(key, value);
  }

  /** Removes the stored value, so the key falls back to its default. Listeners see the new effective value. */
  unset(key: string): void {
    const { changes } = this.db.prepare("DELETE FROM config WHERE key = ?").run(key);
    if (changes > 0) this.notify(key, this.get(key) ?? "");
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Known and stored keys with effective values, sorted by key; passwords masked, hidden defs left out. */
  list(prefix = ""): ConfigEntry[] {
    const keys = new Set<string>();
    for (const key of this.defs.keys()) keys.add(key);
    for (const key of this.envOverlay.keys()) keys.add(key);
    for (const { key } of this.db.prepare("SELECT key FROM config").all() as { key: string }[]) keys.add(key);
    const entries: ConfigEntry[] = [];
    for (const key of [...keys].sort()) {
      if (!key.startsWith(prefix)) continue;
      const def = this.def(key);
      if (def?.hidden) continue;
      const value = this.get(key) ?? "";
      entries.push({
        key,
        value: def?.type === "password" ? maskSecret(value) : value,
        type: def?.type ?? "string",
        description: def?.description ?? "",
        category: def?.category ?? (key.startsWith("plugin.") ? "plugins" : "other"),
      });
    }
    return entries;
  }

  /** Names of LLM sources that have any key stored or set by the environment, sorted. */
  sourceNames(): string[] {
    const names = new Set<string>();
    const rows = this.db.prepare("SELECT key FROM config WHERE key LIKE 'core.llm.sources.%'").all() as {
      key: string;
    }[];
    for (const key of [...rows.map((r) => r.key), ...this.envOverlay.keys()]) {
      const m = SOURCE_KEY.exec(key);
      if (m) names.add(m[1]);
    }
    return [...names].sort();
  }

  source(name: string): LlmSourceConfig {
    if (!this.sourceNames().includes(name)) {
      throw new ConfigError(`no LLM source named ${name}; add one with: set core.llm.sources.${name}.base_url <url>`);
    }
    const k = (field: string) => `core.llm.sources.${name}.${field}`;
    return {
      name,
      adapter: this.get(k("adapter")) ?? "",
      baseUrl: this.get(k("base_url")) ?? "",
      model: this.get(k("model")) ?? "",
      apiKey: this.get(k("api_key")) ?? "",
      priority: this.getInt(k("priority")),
      maxConcurrent: this.getInt(k("max_concurrent")),
      contextWindow: this.getInt(k("context_window")),
      thinkingEnabled: this.getBool(k("thinking_enabled")),
    };
  }

  /** A plugin's own key/value table `config_<name>`, created on first use. */
  pluginSettings(name: string): PluginSettings {
    const table = `config_${sanitisePluginName(name)}`;
    this.db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    const getStmt = this.db.prepare(`SELECT value FROM "${table}" WHERE key = ?`);
    const setStmt = this.db.prepare(
      `INSERT INTO "${table}" (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
    );
    const listStmt = this.db.prepare(`SELECT key, value FROM "${table}" ORDER BY key`);
    return {
      get: (key) => (getStmt.get(key) as { value: string } | undefined)?.value,
      set: (key, value) => {
        setStmt.run(key, value);
      },
      list: () => Object.fromEntries((listStmt.all() as { key: string; value: string }[]).map((r) => [r.key, r.value])),
    };
  }

  disablePlugin(name: string, by: string): void {
    requireName(name);
    this.db
      .prepare("INSERT OR REPLACE INTO disabled_plugins (name, disabled_at, disabled_by) VALUES (?, ?, ?)")
      .run(name, Date.now(), by);
  }

  enablePlugin(name: string): void {
    this.db.prepare("DELETE FROM disabled_plugins WHERE name = ?").run(name);
  }

  isPluginDisabled(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM disabled_plugins WHERE name = ?").get(name) !== undefined;
  }

  disabledPlugins(): DisabledPlugin[] {
    const rows = this.db.prepare("SELECT name, disabled_at, disabled_by FROM disabled_plugins ORDER BY name").all() as {
      name: string;
      disabled_at: number;
      disabled_by: string;
    }[];
    return rows.map((r) => ({ name: r.name, disabledAt: r.disabled_at, disabledBy: r.disabled_by }));
  }

  close(): void {
    this.db.close();
  }

  private require(key: string): string {
    const v = this.get(key);
    if (v === undefined) throw new ConfigError(`config ${key} is not set and has no default`);
    return v;
  }

  private notify(key: string, value: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(key, value);
      } catch (err) {
        this.onListenerError(err, key);
      }
    }
  }
}

/** Why `value` is not valid for `def`, or undefined when it is. */
function invalidReason(def: ConfigDef, value: string): string | undefined {
  switch (def.type) {
    case "int":
      return /^[-+]?\d+$/.test(value) ? undefined : "is not an integer";
    case "bool":
      return value === "true" || value === "false" ? undefined : "must be true or false";
    case "duration": {
      let ms: number;
      try {
        ms = parseDuration(value);
      } catch (err) {
        return `is not valid: ${(err as Error).message}`;
      }
      return ms < 0 ? "must not be negative" : undefined;
    }
    case "select":
      return def.options?.includes(value) ? undefined : `must be one of ${def.options?.join(", ")}`;
    default:
      return undefined;
  }
}

/** "sk-1234567890abcdef" → "sk-1…cdef"; short secrets reveal nothing. */
export function maskSecret(value: string): string {
  if (value === "") return "";
  return value.length >= 12 ? `${value.slice(0, 4)}…${value.slice(-4)}` : "****";
}

function sanitisePluginName(name: string): string {
  requireName(name);
  return name.toLowerCase().replace(/[^a-z0-9_]/g, "_");
}

function requireName(name: string): void {
  if (name.trim() === "") throw new ConfigError("plugin name must not be empty");
}

function envOverlay(env: Record<string, string | undefined>): Map<string, [string, string]> {
  const overlay = new Map<string, [string, string]>();
  // Empty counts as unset: an empty HOMEAGENT_API_KEY must not silently override a stored key and open the API.
  const put = (key: string, variable: string) => {
    const value = env[variable];
    if (value) overlay.set(key, [value, variable]);
  };
  // Without a base URL the other variables describe nothing reachable; the source's adapter then falls back
  // to the template default, openai.
  if (env.HOMEAGENT_LLM_BASE_URL) {
    const k = (field: string) => `core.llm.sources.${ENV_SOURCE}.${field}`;
    put(k("base_url"), "HOMEAGENT_LLM_BASE_URL");
    put(k("api_key"), "HOMEAGENT_LLM_API_KEY");
    put(k("model"), "HOMEAGENT_LLM_MODEL");
    put(k("adapter"), "HOMEAGENT_LLM_ADAPTER");
  }
  put("core.daemon.api_key", "HOMEAGENT_API_KEY");
  return overlay;
}
