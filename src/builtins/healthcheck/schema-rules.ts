/**
 * The rules a tool definition must meet for every provider the daemon speaks to, so a tool that one of them
 * would refuse — failing every request that offers it, not only calls of that tool — is found before a user
 * meets the error. The rules are the providers' documented or observed refusals:
 * - every provider: a name of 1–64 letters, digits, "_" or "-"; parameters a JSON Schema of type "object"
 *   whose `properties` is an object of schemas and whose `required` names only those properties;
 * - OpenAI and Anthropic: no `oneOf` / `anyOf` / `allOf` / `enum` / `not` at the top level;
 * - OpenAI (and OpenAI-compatible gateways such as Azure): a description over 1,024 characters is refused;
 * - Gemini: a name starts with a letter or "_"; its adapter keeps only the OpenAPI subset Gemini accepts, so a
 *   `$ref` (its definitions dropped with it) leaves the parameter without a schema.
 */
import type { ToolInfo } from "@homeagent/sdk";

export type Provider = "openai" | "anthropic" | "gemini";
export const PROVIDERS: readonly Provider[] = ["openai", "anthropic", "gemini"];

export interface SchemaProblem {
  rule: string;
  /** The providers that refuse it. */
  providers: readonly Provider[];
  message: string;
  /** A problem only for the model's understanding; no provider refuses it. */
  advisory?: true;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const GEMINI_NAME = /^[a-zA-Z_]/;
const DESCRIPTION_MAX = 1024;
const TOP_LEVEL_REFUSED = ["oneOf", "anyOf", "allOf", "enum", "not"];
const REF_KEYS = ["$ref", "$defs", "definitions"];
/** How deep nested schemas are looked into for `$ref`: enough for any real tool, bounded for a hostile one. */
const MAX_DEPTH = 16;

/** The family of wire rules an adapter's requests follow. */
export function providerOf(adapter: string): Provider {
  return adapter === "anthropic" ? "anthropic" : adapter === "gemini" ? "gemini" : "openai";
}

export function schemaProblems(tool: Pick<ToolInfo, "name" | "description" | "parameters">): SchemaProblem[] {
  return [...nameProblems(tool.name), ...descriptionProblems(tool.description), ...parameterProblems(tool.parameters)];
}

function nameProblems(name: string): SchemaProblem[] {
  if (!NAME.test(name)) {
    return [{ rule: "name", providers: PROVIDERS, message: `the name must be 1-64 letters, digits, "_" or "-"` }];
  }
  if (!GEMINI_NAME.test(name)) {
    return [{ rule: "name", providers: ["gemini"], message: `Gemini needs the name to start with a letter or "_"` }];
  }
  return [];
}

function descriptionProblems(description: unknown): SchemaProblem[] {
  if (typeof description !== "string" || description.trim() === "") {
    return [
      {
        rule: "description",
        providers: [],
        advisory: true,
        message: "no description: the model cannot tell when to use it",
      },
    ];
  }
  if (description.length > DESCRIPTION_MAX) {
    return [
      {
        rule: "description",
        providers: ["openai"],
        message: `the description has ${description.length} characters; OpenAI-compatible endpoints may refuse more than ${DESCRIPTION_MAX}`,
      },
    ];
  }
  return [];
}

function parameterProblems(schema: unknown): SchemaProblem[] {
  if (!isObject(schema) || schema.type !== "object") {
    return [
      {
        rule: "parameters.type",
        providers: PROVIDERS,
        message: `parameters must be a JSON Schema with type "object" (got ${describe(isObject(schema) ? schema.type : schema)})`,
      },
    ];
  }
  const out: SchemaProblem[] = [];
  const props = schema.properties;
  if (props !== undefined && (!isObject(props) || Object.values(props).some((p) => !isObject(p)))) {
    out.push({
      rule: "parameters.properties",
      providers: PROVIDERS,
      message: "parameters.properties must be an object whose every value is a schema object",
    });
  }
  out.push(...requiredProblems(schema.required, isObject(props) ? props : {}));
  const refused = TOP_LEVEL_REFUSED.filter((k) => k in schema);
  if (refused.length > 0) {
    out.push({
      rule: "parameters.top_level",
      providers: ["openai", "anthropic"],
      message: `${refused.join(", ")} at the top level of parameters is refused; put the choice inside a property`,
    });
  }
  const ref = findRef(schema, 0);
  if (ref) {
    out.push({
      rule: "parameters.$ref",
      providers: ["gemini"],
      message: `${ref} is not understood by Gemini (its adapter drops it, leaving the parameter without a schema); write the schema out in place`,
    });
  }
  return out;
}

function requiredProblems(required: unknown, props: Record<string, unknown>): SchemaProblem[] {
  if (required === undefined) return [];
  if (!Array.isArray(required) || required.some((r) => typeof r !== "string")) {
    return [
      { rule: "parameters.required", providers: PROVIDERS, message: "parameters.required must be a list of names" },
    ];
  }
  const unknown = required.filter((r) => !Object.hasOwn(props, r));
  if (unknown.length === 0) return [];
  return [
    {
      rule: "parameters.required",
      providers: PROVIDERS,
      message: `parameters.required names ${unknown.map((u) => `"${u}"`).join(", ")}, not among its properties`,
    },
  ];
}

/**
 * The first `$ref`-like keyword anywhere in the schema, with where it is, or undefined. The keys of a
 * `properties` map are parameter names, not keywords: a parameter may well be called "definitions".
 */
function findRef(node: unknown, depth: number, path = "parameters", names = false): string | undefined {
  if (depth > MAX_DEPTH || node === null || typeof node !== "object") return undefined;
  const entries = Array.isArray(node) ? node.map((v, i) => [`[${i}]`, v] as const) : Object.entries(node);
  for (const [key, value] of entries) {
    if (!names && !Array.isArray(node) && REF_KEYS.includes(key)) return `${key} (at ${path})`;
    const hit = findRef(
      value,
      depth + 1,
      Array.isArray(node) ? `${path}${key}` : `${path}.${key}`,
      !names && key === "properties",
    );
    if (hit) return hit;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describe(value: unknown): string {
  return value === undefined ? "nothing" : (JSON.stringify(value)?.slice(0, 40) ?? String(value));
}
