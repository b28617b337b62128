/**
 * ConfigRegistry: the config center (inventory §7) as the rest of the daemon sees it. Values are strings;
 * definitions give them a type, rules, a default and a place in the settings page. This facade joins the
 * parts: the SQLite store, the environment overlay, the definitions and their validation, the LLM source
 * view and plugin settings.
 *
 * Validation happens on every write (a bad value is refused with the reason and nothing is stored) and on
 * every read: a value that breaks its definition (hand-edited config.db, a bad environment variable, a rule
 * tightened by a new release) reads as the default and is listed by problems(), so one bad row can never
 * stop the daemon or reach a consumer.
 */
import type { ConfigDefInfo, ConfigEntry, SetManyResult } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { maskSecret } from "../util/secret.js";
import type { ConfigDef } from "./config-def.js";
import { defInfos } from "./def-info.js";
import { CORE_DEFS } from "./defaults.js";
import { DefTable } from "./definitions.js";
import { parseDuration } from "./duration.js";
import { type EnvOverlay, envOverlay } from "./env.js";
import { ConfigError, type Refusal } from "./errors.js";
import { jsonSecrets, maskedJson } from "./json-setting.js";
import { keysLeftBehind } from "./key-guard.js";
import {
  migratePluginTables,
  type PluginSettings,
  pluginKeyParts,
  pluginSettings,
  requirePluginName,
} from "./plugin-settings.js";
import { type LlmSourceConfig, migrateLegacyLlmKeys, readSource, SOURCE_PREFIX, sourceNames } from "./sources.js";
import { ConfigStore, type DisabledPlugin } from "./store.js";
import { isSecret, shownValue, valueProblem } from "./validate.js";
import { checkedWrite, sourceLimitRefusals, type Write, type WriteContext } from "./write-check.js";

export { ConfigError } from "./errors.js";
export { NO_SOURCE_CONFIGURED } from "./sources.js";
export type { ConfigDef, DisabledPlugin, LlmSourceConfig, PluginSettings };

export interface ConfigRegistryOptions {
  /** Source of the HOMEAGENT_* overlay, read once at open. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Where a throwing onChange listener is reported. Default: a process warning. */
  onListenerError?: (err: unknown, key: string) => void;
}

/** A value that is not in effect because it breaks its definition, or a stored key that is no setting. */
export interface ConfigProblem {
  key: string;
  /** As it may be shown: secrets masked, long values cut. */
  value: string;
  /** Where the value comes from: "config.db" or an environment variable's name. */
  origin: string;
  reason: string;
  /** What is used instead; undefined when the key is ignored altogether. */
  default?: string;
  /** One line for the log and the `system` event. */
  message: string;
}

type ChangeListener = (key: string, value: string) => void;

/** Keys one setMany may change: a settings form has a few dozen fields at most. */
export const MAX_CHANGES = 64;

const MAX_MEMOIZED = 4096;

export class ConfigRegistry {
  private readonly defs = new DefTable();
  private readonly listeners = new Set<ChangeListener>();
  private readonly defListeners = new Set<() => void>();
  /** Key → effective value, checked once per write or definition change rather than on every read. */
  private readonly effective = new Map<string, string | undefined>();

  private constructor(
    private readonly store: ConfigStore,
    private readonly env: EnvOverlay,
    private readonly onListenerError: (err: unknown, key: string) => void,
    private readonly notes: string[],
  ) {
    this.defs.register(CORE_DEFS);
  }

  static open(file: string, opts: ConfigRegistryOptions = {}): ConfigRegistry {
    const store = ConfigStore.open(file);
    const notes = [
      migrate("the single-source core.llm.* keys", () => migrateLegacyLlmKeys(store)),
      migrate("the old config_<plugin> tables", () => migratePluginTables(store)),
    ].filter((n): n is string => !!n);
    const report =
      opts.onListenerError ??
      ((err: unknown, key: string) =>
        process.emitWarning(`config onChange listener failed for ${key}: ${String(err)}`, "ConfigListenerWarning"));
    return new ConfigRegistry(store, envOverlay(opts.env ?? process.env), report, notes);
  }

  /** Adds or replaces definitions (plugins add `plugin.<name>.*` defs when they start). */
  registerDefs(defs: ConfigDef[]): void {
    this.defs.register(defs);
    this.effective.clear();
    for (const listener of this.defListeners) listener();
  }

  /** `listener` runs whenever definitions are added (a plugin declared its settings): what is secret may change. */
  onDefine(listener: () => void): () => void {
    this.defListeners.add(listener);
    return () => {
      this.defListeners.delete(listener);
    };
  }

  def(key: string): ConfigDef | undefined {
    return this.defs.get(key);
  }

  /** The definitions under `prefix` for a settings page: templates included, hidden ones left out. */
  defInfos(prefix = ""): ConfigDefInfo[] {
    return defInfos(this.defs.all(), this.env, prefix);
  }

  /**
   * Effective value: environment overlay, else stored, else the def's default. A value that breaks its
   * definition is not in effect: the default is returned (and problems() says why).
   */
  get(key: string): string | undefined {
    if (this.effective.has(key)) return this.effective.get(key);
    const def = this.def(key);
    const value = this.env.get(key)?.value ?? this.store.get(key);
    const effective = value === undefined || (def && valueProblem(def, value)) ? def?.default : value;
    // Settings are read on every turn and every log line; checking a value once per write is enough.
    if (this.effective.size >= MAX_MEMOIZED) this.effective.clear();
    this.effective.set(key, effective);
    return effective;
  }

  /** For a defined key these never throw: get() only returns values that passed the definition's rules. */
  getInt(key: string): number {
    const v = this.require(key);
    const n = Number(v);
    if (!/^[-+]?\d+$/.test(v) || !Number.isSafeInteger(n)) throw this.unreadable(key, v, "an integer");
    return n;
  }

  getNumber(key: string): number {
    const v = this.require(key);
    const n = Number(v);
    if (v.trim() === "" || !Number.isFinite(n)) throw this.unreadable(key, v, "a number");
    return n;
  }

  getBool(key: string): boolean {
    const v = this.require(key);
    if (v !== "true" && v !== "false") throw this.unreadable(key, v, "true or false");
    return v === "true";
  }

  /** Milliseconds; always within what a timer holds. */
  getDuration(key: string): number {
    const v = this.require(key);
    try {
      return parseDuration(v);
    } catch (err) {
      throw new ConfigError("config_invalid", `config ${key}: ${errorMessage(err)}`, err);
    }
  }

  /**
   * Stores a value for a defined key after checking it; throws a ConfigError with the reason otherwise, and
   * then nothing is stored. A plugin's undeclared keys are only writable through its own settings.
   * "" removes the stored value instead (as unset() does), so the default applies again: that is how the
   * settings API resets a key, and no core key gives "" a meaning of its own that differs from its default.
   * A secret's mask as the lists show it (a form that sends every field back) changes nothing; any other
   * mask-shaped value for a secret is refused, as it would replace the real key with "****".
   */
  set(key: string, value: string): void {
    const change = checkedWrite(this.writeContext(), key, value);
    if (!change) return;
    const [tooMany] = this.sourceLimitRefusals([change]).values();
    if (tooMany !== undefined) throw new ConfigError("config_limit", tooMany);
    const leftBehind = this.keysLeftBehind([change]);
    if (change[1] === undefined) this.unset(key);
    else this.write(key, change[1]);
    for (const [secret] of leftBehind) this.unset(secret);
  }

  /**
   * Several keys at once, all or none: every change is checked as set() checks it, and only when all pass
   * are they stored, in one transaction; listeners hear of them afterwards. Returns each refused key with
   * its reason (empty when everything was stored). More than MAX_CHANGES keys throw config_limit.
   */
  setMany(changes: Readonly<Record<string, string>>): SetManyResult {
    const entries = Object.entries(changes);
    if (entries.length > MAX_CHANGES) {
      throw new ConfigError(
        "config_limit",
        `at most ${MAX_CHANGES} settings can change at once (got ${entries.length}); save them in parts`,
      );
    }
    const context = this.writeContext();
    // Maps, not objects: a key such as "__proto__" must be refused like any other, not vanish.
    const refused = new Map<string, string>();
    const reasons = new Map<string, Refusal>();
    const writes: Array<[string, string | undefined]> = [];
    for (const [key, value] of entries) {
      try {
        const change = checkedWrite(context, key, value);
        if (change) writes.push(change);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        refused.set(key, err.message);
        if (err.refusal) reasons.set(key, err.refusal);
      }
    }
    for (const [key, reason] of this.sourceLimitRefusals(writes)) refused.set(key, reason);
    if (refused.size > 0) return { refused: Object.fromEntries(refused), reasons: Object.fromEntries(reasons) };
    const all = [...writes, ...this.keysLeftBehind(writes)];
    const changed = this.store.setMany(all);
    for (const [key] of all) this.effective.delete(key);
    for (const key of changed) this.notify(key, this.get(key) ?? "");
    return { refused: {} };
  }

  /** Removes the stored value, so the key falls back to its default. Listeners see the new effective value. */
  unset(key: string): void {
    if (!this.store.delete(key)) return;
    this.effective.delete(key);
    this.notify(key, this.get(key) ?? "");
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Settings with effective values, sorted by key; passwords masked, hidden defs and non-settings left out. */
  list(prefix = ""): ConfigEntry[] {
    const keys = new Set<string>(this.defs.keys());
    for (const key of this.env.keys()) keys.add(key);
    for (const { key } of this.store.rows(prefix)) if (this.isSetting(key)) keys.add(key);
    const entries: ConfigEntry[] = [];
    for (const key of [...keys].sort()) {
      if (!key.startsWith(prefix)) continue;
      const def = this.def(key);
      if (def?.hidden) continue;
      const value = this.get(key) ?? "";
      const variable = this.env.get(key)?.variable;
      entries.push({
        key,
        value: isSecret(def, key) ? maskSecret(value) : maskedJson(def, value),
        type: def?.type ?? (isSecret(def, key) ? "password" : "string"),
        description: def?.description ?? "",
        category: def?.category ?? "plugins",
        ...(variable ? { env: variable } : {}),
      });
    }
    return entries;
  }

  /**
   * Values not in effect because they break their definitions, and stored keys that are no settings, as
   * of now (call it after plugins have declared theirs). Nothing here stops the daemon.
   */
  problems(): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    for (const [key, { value, variable }] of this.env) {
      const def = this.def(key);
      const reason = def && valueProblem(def, value);
      if (def && reason) problems.push(problem(key, def, value, variable, reason));
    }
    for (const { key, value } of this.store.rows()) {
      if (this.env.has(key)) continue;
      const def = this.def(key);
      if (!def) {
        if (!this.isSetting(key)) problems.push(problem(key, undefined, value, "config.db", "is not a setting"));
        continue;
      }
      const reason = valueProblem(def, value);
      if (reason) problems.push(problem(key, def, value, "config.db", reason));
    }
    return problems;
  }

  /** The effective values of every password setting (core, sources, plugins), for masking them in logs. */
  secrets(): string[] {
    const keys = new Set<string>([...this.defs.keys(), ...this.env.keys()]);
    for (const { key } of this.store.rows()) keys.add(key);
    const values = [...keys].flatMap((key) => {
      const def = this.def(key);
      const value = this.get(key) ?? this.store.get(key) ?? "";
      return isSecret(def, key) ? [value] : jsonSecrets(def, value);
    });
    return [...new Set(values.filter(Boolean))];
  }

  /** What open() did to the stored data (migrations), one line each, for the start-up log. */
  startupNotes(): string[] {
    return [...this.notes];
  }

  /** Names of LLM sources that have any key stored or set by the environment, sorted. */
  sourceNames(): string[] {
    return sourceNames(this.sourceKeys(), (key) => this.def(key) !== undefined);
  }

  /** Never throws for a name sourceNames() returned: every field reads as a valid value. */
  source(name: string): LlmSourceConfig {
    if (!this.sourceNames().includes(name)) {
      throw new ConfigError(
        "config_unknown_source",
        `no LLM source named ${name}; add one with: set ${SOURCE_PREFIX}${name}.base_url <url>`,
      );
    }
    return readSource(this, name);
  }

  /** A plugin's own settings, `plugin.<name>.<key>`; the name must be a valid plugin name. */
  pluginSettings(name: string): PluginSettings {
    return pluginSettings(name, {
      store: this.store,
      def: (key) => this.def(key),
      definedKeys: (prefix) => [...this.defs.keys()].filter((key) => key.startsWith(prefix)),
      get: (key) => this.get(key),
      registerDefs: (defs) => this.registerDefs(defs),
      write: (key, value) => this.write(key, value),
    });
  }

  disablePlugin(name: string, by: string): void {
    requirePluginName(name);
    this.store.disablePlugin(name, by);
  }

  enablePlugin(name: string): void {
    this.store.enablePlugin(name);
  }

  isPluginDisabled(name: string): boolean {
    return this.store.isPluginDisabled(name);
  }

  disabledPlugins(): DisabledPlugin[] {
    return this.store.disabledPlugins();
  }

  close(): void {
    this.store.close();
  }

  /** The stored API keys that `writes` would send to another host: they go (key-guard.ts). */
  private keysLeftBehind(writes: readonly Write[]): Write[] {
    return keysLeftBehind(
      writes,
      (key) => this.get(key),
      (key) => this.store.get(key) !== undefined,
    );
  }

  private writeContext(): WriteContext {
    return { def: (key) => this.def(key), env: this.env, get: (key) => this.get(key) };
  }

  /** The source keys stored or set by the environment, defined or not. */
  private sourceKeys(): string[] {
    return [...this.store.rows(SOURCE_PREFIX).map((r) => r.key), ...this.env.keys()];
  }

  /** Writes refused because the sources after all of them (a whole batch) would exceed the limit. */
  private sourceLimitRefusals(writes: ReadonlyArray<[string, string | undefined]>): Map<string, string> {
    return sourceLimitRefusals(this.sourceKeys(), writes, (key) => this.def(key) !== undefined);
  }

  /** A key that means something: defined, or a well-formed plugin key (a plugin's undeclared own setting). */
  private isSetting(key: string): boolean {
    return this.def(key) !== undefined || pluginKeyParts(key) !== undefined;
  }

  private write(key: string, value: string): void {
    this.store.put(key, value);
    this.effective.delete(key);
    this.notify(key, value);
  }

  private require(key: string): string {
    const v = this.get(key);
    if (v === undefined) throw new ConfigError("config_unknown_key", `config ${key} is not set and has no default`);
    return v;
  }

  /** Only reachable for keys without a definition of that type (e.g. a plugin's undeclared own setting). */
  private unreadable(key: string, value: string, what: string): ConfigError {
    return new ConfigError(
      "config_invalid",
      `config ${key} = ${shownValue(this.def(key), value, key)} is not ${what}; fix it with: set ${key} <value>`,
    );
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

/** A migration that fails leaves the data where it was (each runs in a transaction) and is reported. */
function migrate(what: string, run: () => string | undefined): string | undefined {
  try {
    return run();
  } catch (err) {
    return `could not migrate ${what}; they stay as they are and are not read: ${errorMessage(err)}`;
  }
}

function problem(key: string, def: ConfigDef | undefined, raw: string, origin: string, reason: string): ConfigProblem {
  const value = shownValue(def, raw, key);
  const where = origin === "config.db" ? "in config.db" : `from ${origin}`;
  const message = def
    ? `config ${key} = ${value} (${where}) ${reason}; using the default ${shownValue(def, def.default)} ` +
      `until it is fixed (set ${key} <value>)`
    : `config ${key} (${where}) ${reason}; it is ignored`;
  return { key, value, origin, reason, ...(def ? { default: def.default } : {}), message };
}
