/**
 * The settings page's API: every setting with its definition, writes validated by the config center
 * exactly as `/settings set` is (a refusal is a 400 with the registry's own message), and a one-shot test
 * of an LLM source. A form saves as one request, `{changes: {key: value, …}}`: every change is checked
 * first and all are stored or none, and the refusal names each refused key with its reason (in English, and
 * as an id with details a page can say in its own language), so a form with one bad field never leaves
 * the others half-saved. Secrets are replace-only here: an answer says whether
 * one is set ("****") and never shows any of it, not even the last characters the CLI's list shows; the
 * mask sent back means "unchanged" to the registry. The adapter of a source is offered as a choice among
 * the adapters the daemon has.
 */
import type { ConfigDefInfo, ConfigEntry, PluginSDK, SetManyResult } from "@homeagent/sdk";
import type { Context } from "hono";
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { invalid, optionalString } from "../params.js";
import { sdkCall, toApiError } from "../sdk-errors.js";

/** Longer than any key the config center accepts (128), so its own message explains the refusal. */
const MAX_KEY_CHARS = 256;
/** The longest value any setting takes is 64 KiB of text. */
const MAX_VALUE_CHARS = 65_536;
/** Refused keys named in the error's message; `refused` carries them all. */
const NAMED_KEYS = 5;
/** How a secret that is set is shown: the registry's mask of a short secret, so sending it back changes nothing. */
const SECRET_SET = "****";
const MASK_SHAPE = /^\*{4}.{0,4}$/su;
const MASK_REFUSAL =
  'the value looks like a masked secret ("****" and at most 4 characters), not a new one; type the real value, or leave the field as it is to keep the stored one';
const ADAPTER_KEY = "core.llm.sources.*.adapter";

export const settingsRoutes: RouteGroup = (app, { sdk, limits }) => {
  app.get("/api/v1/settings", (c) => {
    const prefix = c.req.query("prefix") ?? "";
    if (prefix.length > MAX_KEY_CHARS) throw invalid("prefix", `must be at most ${MAX_KEY_CHARS} characters`);
    const adapters = sdk.adapters.list().map((a) => a.name);
    return c.json({
      settings: sdk.config.list(prefix).map(hideSecret),
      defs: sdk.config.defs(prefix).map((def) => offerAdapters(maskDefault(def), adapters)),
    });
  });

  app.put("/api/v1/settings", async (c) => {
    const body = await readJson(c, limits.maxJsonBytes);
    if (body.changes !== undefined) return saveMany(c, sdk, body.changes);
    const key = required(optionalString(body, "key", MAX_KEY_CHARS), "key");
    const value = body.value === null ? "" : body.value;
    if (typeof value !== "string") throw invalid("value", "must be a string, or null to delete the stored value");
    if (value.length > MAX_VALUE_CHARS) throw invalid("value", `must be at most ${MAX_VALUE_CHARS} characters`);
    if (guessedMask(sdk, key, value)) throw new ApiError(400, "config_invalid", MASK_REFUSAL);
    const before = listedValue(sdk, key);
    try {
      sdk.config.set(key, value);
    } catch (err) {
      throw toApiError(err);
    }
    return c.json({
      key,
      value: listedValue(sdk, key),
      ...(value !== "" && value === before ? { unchanged: true } : {}),
    });
  });

  app.post("/api/v1/settings/llm/test", async (c) => {
    const body = await readJson(c, limits.maxJsonBytes);
    const source = required(optionalString(body, "source", 128), "source");
    return c.json(await sdkCall(() => sdk.llm.test(source)));
  });
  return undefined;
};

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw invalid(name, "is required");
  return value;
}

/** The value as the settings list here shows it (a secret only as set or not); "" when it is not listed. */
function listedValue(sdk: PluginSDK, key: string): string {
  const entry = sdk.config.list(key).find((e) => e.key === key);
  return entry ? hideSecret(entry).value : "";
}

function hideSecret(entry: ConfigEntry): ConfigEntry {
  return entry.type === "password" && entry.value !== "" ? { ...entry, value: SECRET_SET } : entry;
}

/** A source's adapter is any adapter the daemon has; the form offers them as a list (the registry still checks the name). */
function offerAdapters(def: ConfigDefInfo, adapters: string[]): ConfigDefInfo {
  if (def.key !== ADAPTER_KEY) return def;
  const options = adapters.includes(def.default) ? adapters : [def.default, ...adapters];
  return { ...def, type: "select", options };
}

/**
 * `{changes: {key: value or null}}`: all stored, answered with each key's value as the list shows it, or
 * none, answered 400 with `refused: {key: reason}` for the form to show under each field.
 */
function saveMany(c: Context, sdk: PluginSDK, raw: unknown): Response {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw invalid("changes", "must be an object {key: value, …} (null resets a key)");
  }
  // fromEntries, not assignment: a key such as "__proto__" must reach the registry and be refused there.
  const changes = Object.fromEntries(Object.entries(raw).map(([key, value]) => [key, value === null ? "" : value]));
  if (Object.keys(changes).length === 0) throw invalid("changes", "must name at least one setting");
  const guessed = Object.keys(changes).filter((key) => guessedMask(sdk, key, changes[key]));
  let result: SetManyResult;
  try {
    result =
      guessed.length > 0
        ? {
            refused: Object.fromEntries(guessed.map((key) => [key, MASK_REFUSAL])),
            reasons: Object.fromEntries(guessed.map((key) => [key, { reason: "masked_secret" }])),
          }
        : sdk.config.setMany(changes);
  } catch (err) {
    throw toApiError(err);
  }
  const { refused, reasons = {} } = result;
  const keys = Object.keys(refused);
  if (keys.length > 0) {
    const named = keys.slice(0, NAMED_KEYS).join(", ") + (keys.length > NAMED_KEYS ? ", …" : "");
    const message = `nothing was saved: ${keys.length} of ${Object.keys(changes).length} settings refused (${named})`;
    return c.json({ error: { code: "settings_refused", message, refused, reasons } }, 400);
  }
  return c.json({ saved: Object.fromEntries(Object.keys(changes).map((key) => [key, listedValue(sdk, key)])) });
}

/**
 * A secret's value shaped like the CLI's mask ("****" and its last four characters). The registry takes
 * the right one as "unchanged" and refuses the others, which would let a page guess a key's last four
 * characters one answer at a time; here only this API's own "****" means "keep it".
 */
function guessedMask(sdk: PluginSDK, key: string, value: unknown): boolean {
  if (typeof value !== "string" || value === SECRET_SET || !MASK_SHAPE.test(value)) return false;
  return sdk.config.list(key).some((e) => e.key === key && e.type === "password");
}

function maskDefault(def: ConfigDefInfo): ConfigDefInfo {
  return def.secret && def.default !== "" ? { ...def, default: SECRET_SET } : def;
}
