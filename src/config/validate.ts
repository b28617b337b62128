/**
 * The rules every setting is checked against, on every write and on every read of a stored value: a value
 * that reaches the running daemon has passed them, so no consumer needs its own parsing guard. The rules
 * come from the definition (type, bounds, length, options, an optional extra check) with per-type defaults,
 * so a definition without explicit bounds is still bounded.
 */
import type { ConfigType } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { maskSecret } from "../util/secret.js";
import { MAX_TIMER_MS } from "../util/time-limit.js";
import type { ConfigDef } from "./config-def.js";
import { parseDuration } from "./duration.js";
import { ConfigError, type Refusal } from "./errors.js";
import { jsonProblem, maskedJson, schemaProblem } from "./json-setting.js";

/** Longest value per type, in characters, unless the definition says less. */
const MAX_LENGTH: Record<ConfigType, number> = {
  string: 4096,
  int: 32,
  float: 64,
  bool: 5,
  duration: 64,
  url: 2048,
  password: 4096,
  select: 256,
  text: 64 * 1024,
  json: 64 * 1024,
};

/** Bounds when the definition gives none: counts are never negative, durations fit a timer. */
const DEFAULT_RANGE: Partial<Record<ConfigType, [number, number]>> = {
  int: [0, MAX_TIMER_MS],
  float: [-1e9, 1e9],
  duration: [0, MAX_TIMER_MS],
};

const INT = /^[-+]?\d+$/;
const FLOAT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const URL_SCHEMES = ["http:", "https:"];
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Names that become one key segment (LLM sources, adapters): letters, digits, "_" and "-", at most 64. */
export function isName(s: string): boolean {
  return NAME.test(s);
}

export const NAME_RULE = 'letters, digits, "_" and "-" only, at most 64 characters';

/** The [min, max] a numeric or duration def allows (durations in ms). */
export function rangeOf(def: ConfigDef): [number, number] {
  const [min, max] = DEFAULT_RANGE[def.type] ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  return [def.min ?? min, def.max ?? max];
}

export function maxLengthOf(def: ConfigDef): number {
  return Math.min(def.maxLength ?? MAX_LENGTH[def.type], MAX_LENGTH[def.type]);
}

/** Why a value breaks its rules: the English phrase that follows the value, and the refusal's id and details. */
export interface Problem extends Refusal {
  text: string;
}

const problem = (reason: string, text: string, params?: Record<string, string>): Problem =>
  params ? { reason, text, params } : { reason, text };

/** Why `value` is not valid for `def` (a phrase that follows the value), or undefined when it is. */
export function valueProblem(def: ConfigDef, value: string): string | undefined {
  return problemOf(def, value)?.text;
}

/** The same, with the refusal's id and details (a client says it in its own language). */
export function problemOf(def: ConfigDef, value: string): Problem | undefined {
  const max = maxLengthOf(def);
  if (value.length > max) {
    return problem("too_long", `is too long (${value.length} characters, at most ${max})`, { max: String(max) });
  }
  if (hasControlCharacter(value, def.type === "text" || def.type === "json"))
    return problem("control_characters", "contains control characters");
  const own = typeProblem(def, value) ?? patternProblem(def, value);
  if (own) return own;
  const rule = def.check?.(value);
  return rule ? problem("rule", rule) : undefined;
}

/** A plugin's own rule for the value's form (SettingDef.pattern). */
function patternProblem(def: ConfigDef, value: string): Problem | undefined {
  if (def.pattern === undefined || value === "" || patternOf(def.pattern)?.test(value)) return undefined;
  const example = def.placeholder ? ` (e.g. ${def.placeholder})` : "";
  return problem("bad_form", `is not in the expected form${example}`, { example: def.placeholder ?? "" });
}

function patternOf(pattern: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${pattern})$`, "u");
  } catch {
    return undefined;
  }
}

/** Control characters break log lines, headers and the cli's one-line frames; only text may hold newlines. */
function hasControlCharacter(value: string, allowLayout: boolean): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (allowLayout && (c === 0x09 || c === 0x0a || c === 0x0d)) continue;
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

function typeProblem(def: ConfigDef, value: string): Problem | undefined {
  switch (def.type) {
    case "int": {
      if (!INT.test(value)) return problem("not_integer", "is not an integer");
      const n = Number(value);
      return rangeProblem(def, Number.isSafeInteger(n) ? n : Number.NaN, String);
    }
    case "float": {
      const n = Number(value);
      if (!FLOAT.test(value) || !Number.isFinite(n)) return problem("not_number", "is not a number");
      return rangeProblem(def, n, String);
    }
    case "bool":
      return value === "true" || value === "false" ? undefined : problem("not_boolean", "must be true or false");
    case "duration": {
      let ms: number;
      try {
        ms = parseDuration(value);
      } catch (err) {
        return problem("bad_duration", `is not valid: ${errorMessage(err)}`);
      }
      return rangeProblem(def, ms, formatMs);
    }
    case "url":
      return urlProblem(value);
    case "json": {
      const bad = jsonProblem(def, value);
      return bad ? problem("bad_json", bad) : undefined;
    }
    case "select": {
      const options = def.options?.join(", ") ?? "";
      return def.options?.includes(value) ? undefined : problem("not_option", `must be one of ${options}`, { options });
    }
    default:
      return undefined;
  }
}

/** A number outside the definition's bounds (NaN: one too large to hold) is refused with the bounds. */
function rangeProblem(def: ConfigDef, n: number, show: (n: number) => string): Problem | undefined {
  const [min, max] = rangeOf(def);
  if (n >= min && n <= max) return undefined;
  return problem("out_of_range", `is out of range (allowed: ${show(min)} to ${show(max)})`, {
    min: show(min),
    max: show(max),
  });
}

/** Empty means "not configured"; anything else must be an http(s) URL without credentials. */
function urlProblem(value: string): Problem | undefined {
  if (value === "") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return problem("not_url", "is not a URL (use e.g. https://api.example.com/v1)");
  }
  if (!URL_SCHEMES.includes(url.protocol)) {
    return problem("bad_scheme", `must start with http:// or https:// (not ${url.protocol}//)`);
  }
  if (!url.hostname) return problem("no_host", "has no host");
  if (url.username || url.password) {
    return problem("url_credentials", "must not contain credentials: put the key in the api_key setting");
  }
  return undefined;
}

/** How long the words a settings page shows of a definition may be (a plugin's too). */
const TEXT_LIMITS = { displayName: 200, description: 4000, unit: 32 } as const;

/** Why the words of `def` (label, description, unit, translations) cannot be shown, or undefined. */
function textProblem(def: ConfigDef): string | undefined {
  const zh = def.translations?.zh;
  const texts: Array<[string, unknown, number]> = [
    ["displayName", def.displayName, TEXT_LIMITS.displayName],
    ["description", def.description, TEXT_LIMITS.description],
    ["unit", def.unit, TEXT_LIMITS.unit],
    ["translations.zh.displayName", zh?.displayName, TEXT_LIMITS.displayName],
    ["translations.zh.description", zh?.description, TEXT_LIMITS.description],
  ];
  for (const [name, text, max] of texts) {
    if (text === undefined) continue;
    if (typeof text !== "string" || text.length > max) return `${name} must be text of at most ${max} characters`;
  }
  return undefined;
}

/** Why `def` cannot be registered, or undefined. */
export function defProblem(def: ConfigDef): string | undefined {
  const words = textProblem(def);
  if (words) return words;
  if (def.type === "select" && !def.options?.length) return "a select needs options";
  if (def.agentWritable !== undefined && typeof def.agentWritable !== "boolean")
    return "agentWritable is true or false";
  // A credential the model could swap for an attacker's is never the model's to change.
  if (def.agentWritable === true && isSecret(def, def.key))
    return "a secret (a password or key) cannot be agentWritable";
  if (def.secretFields !== undefined && (def.type !== "json" || !Array.isArray(def.secretFields)))
    return "secretFields is a list of names, for a json setting";
  const schema = schemaProblem(def);
  if (schema) return schema;
  if (def.pattern !== undefined && !patternOf(def.pattern))
    return `pattern ${JSON.stringify(def.pattern)} is not a valid regular expression`;
  const [min, max] = rangeOf(def);
  if (min > max) return `min ${min} is above max ${max}`;
  if (def.type === "duration" && (min < 0 || max > MAX_TIMER_MS)) {
    return `duration bounds must lie within 0 and ${MAX_TIMER_MS} ms (what a timer holds)`;
  }
  const bad = valueProblem(def, def.default);
  return bad && `default ${JSON.stringify(def.default)} ${bad}`;
}

/** Throws a config_invalid ConfigError naming the key and the reason when `value` is not valid. */
export function requireValid(key: string, def: ConfigDef, value: string): void {
  const bad = problemOf(def, value);
  if (!bad) return;
  const { text, ...refusal } = bad;
  throw new ConfigError(
    "config_invalid",
    `config ${key}: ${shownValue(def, value)} ${text}; nothing was changed`,
    undefined,
    refusal,
  );
}

/** A value as it may appear in a message or log line: secrets masked, long values cut. */
export function shownValue(def: ConfigDef | undefined, value: string, key = ""): string {
  if (isSecret(def, key)) return JSON.stringify(maskSecret(value));
  value = maskedJson(def, value);
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

// The last part of a key that holds a credential, for keys no definition describes (a plugin's undeclared
// settings, a legacy row): better masked once too often than shown once.
const SECRET_KEY = /((^|[._-])(api_?key|password|passwd|secret|token|credentials?)|[a-z0-9]_key)$/i;

/** Whether a value must be masked wherever it is shown: a password setting, or an undeclared key named like one. */
export function isSecret(def: ConfigDef | undefined, key: string): boolean {
  return def ? def.type === "password" : SECRET_KEY.test(key);
}

/** 90_000 → "1m30s": bounds in messages read like the values users type. */
export function formatMs(ms: number): string {
  if (ms === 0) return "0";
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join("");
}
