/**
 * What the config center knows about one key: the SDK's setting definition plus the core's own extras. Its
 * own file because the definitions (defaults.ts) use the validators (validate.ts) that read this shape.
 */
import type { SettingDef } from "@homeagent/sdk";

export interface ConfigDef extends SettingDef {
  /** Full key; a `*` segment matches any one name segment (e.g. an LLM source name). */
  key: string;
  category: string;
  /** A rule beyond the type's: why `value` is refused, or undefined. Core definitions only. */
  check?: (value: string) => string | undefined;
}
