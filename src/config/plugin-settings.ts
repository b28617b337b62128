/**
 * Plugin settings: one namespace, one store. A plugin's key `k` is the config key `plugin.<name>.k` in the
 * main table, so config.get/list, `/settings` and the plugin's own SettingsAPI all see the same value.
 * Plugin names are validated rather than sanitised, so two plugins can never share keys (the old
 * `config_<sanitised name>` tables mapped `my-plugin` and `my_plugin` to one table; they are migrated here).
 */
import type { SettingDef, SettingsAPI } from "@homeagent/sdk";
import type { ConfigDef } from "./config-def.js";
import { ConfigError } from "./errors.js";
import type { ConfigStore } from "./store.js";
import { requireValid } from "./validate.js";

export type PluginSettings = SettingsAPI;

/** Lower case only: a name is also a directory (`plugin_data/<name>`) on file systems that ignore case. */
const PLUGIN_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const PLUGIN_NAME_RULE = 'lower-case letters, digits, "_" and "-", starting with a letter or digit, at most 64';
/** Relative keys: dot-separated segments of letters, digits, "_" and "-". */
const OWN_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const MAX_OWN_KEY_LENGTH = 128;
/** Bounds on what a plugin may keep without declaring it. */
export const MAX_OWN_KEYS = 1024;
export const MAX_OWN_VALUE_LENGTH = 64 * 1024;
const PLUGIN_KEY = /^plugin\.([^.]+)\.(.+)$/;

/** Throws config_bad_name unless `name` can be a plugin's namespace. */
export function requirePluginName(name: string): void {
  if (!PLUGIN_NAME.test(name)) {
    throw new ConfigError("config_bad_name", `invalid plugin name ${JSON.stringify(name)}: use ${PLUGIN_NAME_RULE}`);
  }
}

/** `plugin.<name>.<key>` split into its plugin and relative key, when both are well formed. */
export function pluginKeyParts(key: string): { plugin: string; key: string } | undefined {
  const m = PLUGIN_KEY.exec(key);
  if (!m || !PLUGIN_NAME.test(m[1]) || !isOwnKey(m[2])) return undefined;
  return { plugin: m[1], key: m[2] };
}

function isOwnKey(key: string): boolean {
  return key.length <= MAX_OWN_KEY_LENGTH && OWN_KEY.test(key);
}

/** What a plugin's settings need from the registry. */
export interface PluginSettingsHost {
  store: ConfigStore;
  def(key: string): ConfigDef | undefined;
  /** Keys with a definition of their own that start with `prefix`. */
  definedKeys(prefix: string): string[];
  get(key: string): string | undefined;
  registerDefs(defs: ConfigDef[]): void;
  /** Stores the value and tells the change listeners. */
  write(key: string, value: string): void;
}

export function pluginSettings(name: string, host: PluginSettingsHost): PluginSettings {
  requirePluginName(name);
  const prefix = `plugin.${name}.`;
  const fullKey = (key: string): string => {
    if (!isOwnKey(key)) {
      throw new ConfigError(
        "config_invalid",
        `plugin ${name}: invalid setting key ${JSON.stringify(key.slice(0, MAX_OWN_KEY_LENGTH))}: use ` +
          `dot-separated letters, digits, "_" and "-", at most ${MAX_OWN_KEY_LENGTH} characters`,
      );
    }
    return prefix + key;
  };
  return {
    get: (key) => host.get(fullKey(key)),
    set: (key, value) => {
      const full = fullKey(key);
      const def = host.def(full);
      if (def) requireValid(full, def, value);
      else checkUndeclared(name, full, value, host.store);
      host.write(full, value);
    },
    list: () => {
      const keys = [...host.definedKeys(prefix), ...host.store.rows(prefix).map((r) => r.key)];
      const out: Record<string, string> = {};
      for (const key of keys.sort()) out[key.slice(prefix.length)] = host.get(key) ?? "";
      return out;
    },
    define: (defs: SettingDef[]) => {
      host.registerDefs(defs.map((d) => ({ ...d, key: fullKey(d.key), category: d.category ?? "plugins" })));
    },
  };
}

function checkUndeclared(name: string, full: string, value: string, store: ConfigStore): void {
  if (value.length > MAX_OWN_VALUE_LENGTH || value.includes("\0")) {
    throw new ConfigError(
      "config_invalid",
      `plugin ${name}: ${full} is too long (${value.length} characters, at most ${MAX_OWN_VALUE_LENGTH}) ` +
        "or contains NUL; nothing was changed",
    );
  }
  if (store.get(full) === undefined && store.count(`plugin.${name}.`) >= MAX_OWN_KEYS) {
    throw new ConfigError(
      "config_limit",
      `plugin ${name} already keeps ${MAX_OWN_KEYS} settings; remove some before adding ${full}`,
    );
  }
}

/**
 * Moves the rows of the old `config_<sanitised name>` tables into `plugin.<sanitised name>.<key>` (a value
 * already stored under the new key wins) and drops the tables. The original name is not recoverable from
 * the table name: a plugin whose name has "-" finds its old values under the "_" spelling. Returns a line
 * for the start-up log.
 */
export function migratePluginTables(store: ConfigStore): string | undefined {
  const tables = store.oldPluginTables();
  if (tables.length === 0) return undefined;
  const moved: string[] = [];
  const left: string[] = [];
  let rows = 0;
  store.transaction(() => {
    for (const table of tables) {
      const name = table.slice("config_".length);
      if (!PLUGIN_NAME.test(name)) {
        left.push(table);
        continue;
      }
      for (const row of store.tableRows(table)) {
        if (store.putIfAbsent(`plugin.${name}.${row.key}`, row.value)) rows++;
      }
      store.dropTable(table);
      moved.push(table);
    }
  });
  const parts = [];
  if (moved.length > 0) {
    parts.push(`moved ${rows} plugin setting(s) from the old tables ${moved.join(", ")} to plugin.<name>.* keys`);
  }
  if (left.length > 0) parts.push(`left ${left.join(", ")} untouched: no valid plugin name matches`);
  return parts.join("; ");
}
