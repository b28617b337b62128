/**
 * Argument checks for the plugin-facing memory API (graph, history, commit). Plugins pass whatever an HTTP
 * client sent them, so every value is checked here and a bad one is refused with code "invalid_argument"
 * and a message naming the argument and its allowed range — the web UI shows that message as the 400.
 */
import { HomeAgentError } from "../util/errors.js";

export class MemoryArgumentError extends HomeAgentError {
  constructor(message: string, cause?: unknown) {
    super({ code: "invalid_argument", message, cause });
  }
}

/** `value` if it is an integer in [min, max], `fallback` when it is undefined; anything else is refused. */
export function intArg(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new MemoryArgumentError(`${name} must be an integer ${range}, got ${describe(value)}`);
  }
  return value;
}

/** How a bad value reads in a message: short, and never the whole of a huge string. */
export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : typeof value;
}
