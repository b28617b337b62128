/**
 * The config center's one error type. Its `code` lets callers (the cli, the web UI, tests) tell a refused
 * value from an unknown key without parsing the message; the message itself says what to do instead.
 */
import { HomeAgentError } from "../util/errors.js";

export type ConfigErrorCode =
  /** A value that breaks its definition's rules (type, range, length, URL scheme, options). */
  | "config_invalid"
  /** A key no definition covers. */
  | "config_unknown_key"
  /** A key whose value comes from an environment variable, so storing one would have no effect. */
  | "config_env_override"
  /** A definition that cannot be registered (e.g. its own default breaks its rules). */
  | "config_bad_definition"
  /** No LLM source of that name is configured. */
  | "config_unknown_source"
  /** A plugin name the config center cannot keep apart from others. */
  | "config_bad_name"
  /** A count limit (sources, a plugin's own keys) was reached. */
  | "config_limit";

/**
 * Why a value was refused, as a short id and its details (`out_of_range` with min and max), so a client can
 * say it in its own language; the message says it in English.
 */
export interface Refusal {
  reason: string;
  params?: Record<string, string>;
}

export class ConfigError extends HomeAgentError {
  declare readonly code: ConfigErrorCode;

  constructor(
    code: ConfigErrorCode,
    message: string,
    cause?: unknown,
    /** Why, for a value refused by its rules (absent for other refusals). */
    readonly refusal?: Refusal,
  ) {
    super({ code, message, cause });
  }
}
