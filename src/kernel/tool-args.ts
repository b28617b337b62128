/**
 * A light check of tool arguments against the tool's JSON Schema: required keys and top-level types.
 * Models often omit or mistype a field; a precise message lets them correct the call on the next round.
 */
import type { JSONSchema } from "@homeagent/sdk";

export function validateArguments(schema: JSONSchema, args: Record<string, unknown>): string | null {
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const missing = required.filter((k) => args[k] === undefined);
  if (missing.length > 0) return `missing required ${missing.map((k) => `"${k}"`).join(", ")}`;
  const props = (schema.properties ?? {}) as Record<string, { type?: string | string[]; enum?: unknown[] }>;
  for (const [key, value] of Object.entries(args)) {
    const prop = props[key];
    if (!prop || value === null) continue;
    if (prop.type && !typeMatches(prop.type, value)) {
      return `"${key}" must be ${Array.isArray(prop.type) ? prop.type.join(" or ") : prop.type}, got ${jsonType(value)}`;
    }
    if (prop.enum && !prop.enum.includes(value)) {
      return `"${key}" must be one of ${prop.enum.map((e) => JSON.stringify(e)).join(", ")}`;
    }
  }
  return null;
}

function typeMatches(type: string | string[], value: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => t === jsonType(value) || (t === "number" && jsonType(value) === "integer"));
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
