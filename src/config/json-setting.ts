/**
 * Settings of type `json` (a list of MCP servers, say): the value must parse, and match the definition's
 * JSON Schema, when it is written — so a typo is refused at once with the path that is wrong, never found
 * by the plugin at its next start. Values under the definition's `secretFields` (an `env` or `headers`
 * object's values) are credentials: masked wherever the value is listed, and a masked value written back
 * (a form that sends the whole value) keeps the stored secret at the same place.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { looksMasked, maskSecret } from "../util/secret.js";
import type { ConfigDef } from "./config-def.js";
import { ConfigError } from "./errors.js";

const BARE_MASK = "****";
/** Deeper values are refused before anything walks them (a recursion thousands deep would overflow). */
const MAX_DEPTH = 64;
/** Errors quoted of one refused value: the first says what to fix, a few more save a round trip. */
const MAX_ERRORS = 3;

const ajv = new Ajv({ allErrors: true, strict: false });
/** A schema's validator, or why it would not compile. */
const compiled = new WeakMap<object, ValidateFunction | string>();

function validatorOf(schema: object): ValidateFunction | string {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      validate = err instanceof Error ? err.message : String(err);
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/** Why `def.schema` cannot be used, or undefined. */
export function schemaProblem(def: ConfigDef): string | undefined {
  if (def.schema === undefined) return undefined;
  if (def.type !== "json") return "only a json setting has a schema";
  const validate = validatorOf(def.schema);
  return typeof validate === "string" ? `its schema is not valid JSON Schema: ${validate}` : undefined;
}

/** Why `value` is no JSON matching the schema (a phrase that follows the value), or undefined. */
export function jsonProblem(def: ConfigDef, value: string): string | undefined {
  if (value === "") return undefined;
  if (nestingDepth(value) > MAX_DEPTH) return `nests deeper than ${MAX_DEPTH} levels`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    // The parser's message quotes the value, which may hold a credential: only where it broke is said.
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    return `is not JSON${at ? ` (it breaks at character ${at})` : ""}`;
  }
  if (def.schema === undefined) return undefined;
  const validate = validatorOf(def.schema);
  if (typeof validate === "string" || validate(parsed)) return undefined;
  // An `if` or `propertyNames` error only says which rule failed; the errors beside it say what is wrong.
  const errors = (validate.errors ?? [])
    .filter((e) => e.keyword !== "if" && e.keyword !== "propertyNames")
    .slice(0, MAX_ERRORS)
    .map(errorText);
  return `does not fit: ${errors.join("; ")}`;
}

function errorText(e: ErrorObject): string {
  const where = e.instancePath || "the value";
  if (e.keyword === "false schema") return `${where} is not allowed here`;
  if (e.keyword === "additionalProperties") {
    return `${where} has ${JSON.stringify(e.params.additionalProperty)}, which is not one of its fields`;
  }
  if (e.propertyName !== undefined) return `${where}: the name ${JSON.stringify(e.propertyName)} ${e.message}`;
  return `${where} ${e.message}`;
}

/** How deeply brackets nest in `text`, outside strings; counted without parsing it. */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") deepest = Math.max(deepest, ++depth);
    else if (c === "}" || c === "]") depth--;
  }
  return deepest;
}

type Visit = (text: string, path: string[]) => string;

/** Rebuilds `value` with every secret string replaced by what `visit` returns for it. */
function mapSecrets(fields: ReadonlySet<string>, value: unknown, visit: Visit, path: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item, i) => mapSecrets(fields, item, visit, [...path, String(i)]));
  if (value === null || typeof value !== "object") return value;
  const secretHere = path.length > 0 && fields.has(path[path.length - 1]);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      secretHere && typeof item === "string"
        ? visit(item, [...path, key])
        : mapSecrets(fields, item, visit, [...path, key]);
  }
  return out;
}

function secretFieldsOf(def: ConfigDef | undefined): ReadonlySet<string> | undefined {
  return def?.type === "json" && def.secretFields?.length ? new Set(def.secretFields) : undefined;
}

/** The value's tree; undefined when it is not JSON or nests too deep to walk. */
function parsed(value: string): unknown {
  if (nestingDepth(value) > MAX_DEPTH) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** The value as it may be shown: each secret field's strings masked (at most their last four characters). */
export function maskedJson(def: ConfigDef | undefined, value: string): string {
  const fields = secretFieldsOf(def);
  if (!fields || value === "") return value;
  // What cannot be read cannot be masked: none of it is shown.
  const tree = parsed(value);
  if (tree === undefined) return "(not shown)";
  return JSON.stringify(mapSecrets(fields, tree, maskSecret));
}

/** Every secret string of the value, for masking them in logs. */
export function jsonSecrets(def: ConfigDef | undefined, value: string): string[] {
  const fields = secretFieldsOf(def);
  const tree = fields && value !== "" ? parsed(value) : undefined;
  if (!fields || tree === undefined) return [];
  const found: string[] = [];
  mapSecrets(fields, tree, (text) => {
    found.push(text);
    return text;
  });
  return found;
}

/**
 * `value` with each masked secret (as the lists show it) replaced by the stored one at the same place.
 * A mask with nothing stored behind it is refused: it would store "****" as the credential.
 */
export function withStoredSecrets(key: string, def: ConfigDef, value: string, current: string | undefined): string {
  const fields = secretFieldsOf(def);
  // Too deep or no JSON at all: left as it is, for the value's own check to refuse.
  const tree = fields ? parsed(value) : undefined;
  if (!fields || tree === undefined) return value;
  const stored = current ? parsed(current) : undefined;
  let replaced = false;
  const restored = mapSecrets(fields, tree, (text, path) => {
    if (!looksMasked(text)) return text;
    const before = at(stored, path);
    if (typeof before === "string" && before !== "" && (text === maskSecret(before) || text === BARE_MASK)) {
      replaced = true;
      return before;
    }
    throw new ConfigError(
      "config_invalid",
      `config ${key}: ${path.join(".")} looks like a masked secret ("****" and at most 4 characters) with no ` +
        "stored value behind it; type the real value",
      undefined,
      { reason: "masked_secret" },
    );
  });
  return replaced ? JSON.stringify(restored) : value;
}

function at(tree: unknown, path: readonly string[]): unknown {
  let node = tree;
  for (const key of path) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
