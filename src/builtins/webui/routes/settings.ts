/**
 * The settings page's API: every setting with its definition, writes validated by the config center
 * exactly as `/settings set` is (a refusal is a 400 with the registry's own message), and a one-shot test
 * of an LLM source. Secrets leave only masked: the registry masks listed values; defaults of secret
 * definitions are masked here. A form that sends every field back sends a secret's mask too: writing it
 * would replace the real key with "****abcd", so the mask of the stored value changes nothing and any other
 * mask-shaped value is refused.
 */
import type { ConfigDefInfo, PluginSDK } from "@homeagent/sdk";
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { sdkError } from "../errors.js";
import { invalid, optionalString } from "../params.js";

/** Longer than any key the config center accepts (128), so its own message explains the refusal. */
const MAX_KEY_CHARS = 256;
/** The longest value any setting takes is 64 KiB of text. */
const MAX_VALUE_CHARS = 65_536;

export const settingsRoutes: RouteGroup = (app, { sdk, limits }) => {
  app.get("/api/v1/settings", (c) => {
    const prefix = c.req.query("prefix") ?? "";
    if (prefix.length > MAX_KEY_CHARS) throw invalid("prefix", `must be at most ${MAX_KEY_CHARS} characters`);
    return c.json({ settings: sdk.config.list(prefix), defs: sdk.config.defs(prefix).map(maskDefault) });
  });

  app.put("/api/v1/settings", async (c) => {
    const body = await readJson(c, limits.maxJsonBytes);
    const key = required(optionalString(body, "key", MAX_KEY_CHARS), "key");
    const value = body.value === null ? "" : body.value;
    if (typeof value !== "string") throw invalid("value", "must be a string, or null to delete the stored value");
    if (value.length > MAX_VALUE_CHARS) throw invalid("value", `must be at most ${MAX_VALUE_CHARS} characters`);
    if (MASKED.test(value) && isSecretKey(sdk, key)) {
      const shown = listedValue(sdk, key);
      if (value === shown) return c.json({ key, value: shown, unchanged: true });
      throw new ApiError(
        400,
        "invalid_argument",
        `value looks like a masked secret ("****" and at most 4 characters), not a new one; send the real ${key} or leave it out`,
      );
    }
    try {
      sdk.config.set(key, value);
    } catch (err) {
      throw sdkError(err, {}, 400);
    }
    return c.json({ key, value: listedValue(sdk, key) });
  });

  app.post("/api/v1/settings/llm/test", async (c) => {
    const body = await readJson(c, limits.maxJsonBytes);
    const source = required(optionalString(body, "source", 128), "source");
    try {
      return c.json(await sdk.llm.test(source));
    } catch (err) {
      throw sdkError(err, { llm_unknown_source: 404 }, 400);
    }
  });
  return undefined;
};

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw invalid(name, "is required");
  return value;
}

/** The value as the settings list shows it (masked for secrets); "" when it is not listed. */
function listedValue(sdk: PluginSDK, key: string): string {
  return sdk.config.list(key).find((e) => e.key === key)?.value ?? "";
}

/** What the registry shows for a secret: "****", or "****" and the last four characters. */
const MASKED = /^\*{4}.{0,4}$/su;

/** Whether `key` holds a secret: its definition (a template's included) says so, or its listed entry does. */
function isSecretKey(sdk: PluginSDK, key: string): boolean {
  if (sdk.config.defs(key).some((d) => d.secret && keyMatches(d.key, key))) return true;
  return sdk.config.list(key).some((e) => e.key === key && e.type === "password");
}

/** `core.llm.sources.*.api_key` matches `core.llm.sources.main.api_key`. */
function keyMatches(pattern: string, key: string): boolean {
  const a = pattern.split(".");
  const b = key.split(".");
  return a.length === b.length && a.every((part, i) => part === "*" || part === b[i]);
}

function maskDefault(def: ConfigDefInfo): ConfigDefInfo {
  return def.secret && def.default !== "" ? { ...def, default: "****" } : def;
}
