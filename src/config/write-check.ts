/**
 * What one write to the config center means, decided before anything is stored: set() and setMany() both
 * ask here, so a batch refuses exactly what a single write refuses, with the same message.
 */

import { looksMasked, maskSecret } from "../util/secret.js";
import type { ConfigDef } from "./config-def.js";
import type { EnvOverlay } from "./env.js";
import { ConfigError } from "./errors.js";
import { withStoredSecrets } from "./json-setting.js";
import { pluginKeyParts } from "./plugin-settings.js";
import { MAX_SOURCES, sourceKeyHint, sourceLimitMessage, sourceNameOf, sourceNames } from "./sources.js";
import { isSecret, requireValid } from "./validate.js";

/** Longer keys are never settings; refusing them keeps messages and lookups small. */
const MAX_KEY_LENGTH = 256;
const BARE_MASK = "****";

export interface WriteContext {
  def(key: string): ConfigDef | undefined;
  env: EnvOverlay;
  /** The effective value now. */
  get(key: string): string | undefined;
}

export type Write = [string, string | undefined];

/**
 * The write `value` means for `key` ([key, undefined] deletes the stored value), or null when it changes
 * nothing: a secret's own mask sent back by a form that sends every field. Throws a ConfigError with the
 * reason when the write is refused; then nothing may be stored.
 */
export function checkedWrite(ctx: WriteContext, key: string, value: unknown): [string, string | undefined] | null {
  const def = key.length <= MAX_KEY_LENGTH ? ctx.def(key) : undefined;
  if (!def) throw unknownKey(key);
  const env = ctx.env.get(key);
  if (env) {
    // Storing it would have no effect while the variable is set; say so instead of silently ignoring it.
    throw new ConfigError(
      "config_env_override",
      `config ${key} comes from the environment variable ${env.variable}; change or unset it there`,
      undefined,
      { reason: "env_override", params: { variable: env.variable } },
    );
  }
  if (typeof value !== "string") {
    throw new ConfigError("config_invalid", `config ${key}: the value must be a string ("" resets it to the default)`);
  }
  if (value === "") return [key, undefined];
  if (isSecret(def, key) && looksMasked(value)) {
    // Its mask as the CLI lists it, or a bare "****" as the web UI shows any secret that is set: unchanged.
    const current = ctx.get(key) ?? "";
    if (current !== "" && (value === maskSecret(current) || value === BARE_MASK)) return null;
    throw new ConfigError(
      "config_invalid",
      `config ${key}: the value looks like a masked secret ("****" and at most 4 characters), not a new one; ` +
        "type the real value, or leave the field as it is to keep the stored one",
      undefined,
      { reason: "masked_secret" },
    );
  }
  const stored = def.type === "json" ? withStoredSecrets(key, def, value, ctx.get(key)) : value;
  requireValid(key, def, stored);
  return [key, stored];
}

/**
 * The keys of `writes` refused because the LLM sources as they would be after all of them exceed
 * MAX_SOURCES, each with its reason. `existing` are the source keys stored or set by the environment now.
 * The whole batch counts, removals included, so a batch that unsets every key of one source and adds
 * another (a swap) passes; when too many are added, the ones the batch names last are refused.
 */
export function sourceLimitRefusals(
  existing: Iterable<string>,
  writes: readonly Write[],
  isSetting: (key: string) => boolean,
): Map<string, string> {
  const refused = new Map<string, string>();
  const keys = new Set(existing);
  const before = new Set(sourceNames(keys, isSetting));
  for (const [key, value] of writes) {
    if (value === undefined) keys.delete(key);
    else keys.add(key);
  }
  const after = sourceNames(keys, isSetting);
  if (after.length <= MAX_SOURCES) return refused;
  const added = new Set<string>();
  for (const [key, value] of writes) {
    const name = sourceNameOf(key);
    if (value !== undefined && name !== undefined && !before.has(name)) added.add(name);
  }
  const room = MAX_SOURCES - (after.length - added.size);
  const allowed = new Set([...added].slice(0, Math.max(0, room)));
  for (const [key, value] of writes) {
    const name = sourceNameOf(key);
    if (value === undefined || name === undefined || !added.has(name) || allowed.has(name)) continue;
    refused.set(key, sourceLimitMessage(name));
  }
  return refused;
}

function unknownKey(key: string): ConfigError {
  const shown = key.length > 120 ? `${key.slice(0, 120)}…` : key;
  const hint = sourceKeyHint(shown);
  if (hint) return new ConfigError("config_unknown_key", hint);
  const plugin = pluginKeyParts(key);
  if (plugin) {
    return new ConfigError(
      "config_unknown_key",
      `unknown config key ${shown}: plugin ${plugin.plugin} declares no such setting ` +
        `(is the plugin installed and running? its settings are listed by /settings plugin.${plugin.plugin}.)`,
    );
  }
  return new ConfigError(
    "config_unknown_key",
    shown.startsWith("core.")
      ? `unknown config key ${shown}; list the known keys with: /settings core.`
      : `unknown config key ${shown}; keys live under core.* or plugin.<name>.*`,
  );
}
