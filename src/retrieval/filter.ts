/**
 * Search filters (kind, time range, metadata) in the two forms the engine needs: a SQL condition over
 * `search_items` for listing, counting and metadata look-ups, and a checked, normalised object the
 * in-memory indexes test per candidate. Metadata keys are validated because they become JSON paths.
 */
import { RetrievalError } from "./errors.js";

export interface SearchFilter {
  /** One kind or any of several. */
  kind?: string | string[];
  /** Items with ts ≥ since (unix ms). */
  since?: number;
  /** Items with ts ≤ until (unix ms); both ends are included. */
  until?: number;
  /** Every key must equal its value in the item's meta (top-level keys; true/false match JSON booleans). */
  meta?: Record<string, string | number | boolean>;
}

export interface NormalFilter {
  kinds: string[] | null;
  since: number;
  until: number;
  meta: Array<[string, string | number]>;
}

const META_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_KINDS = 100;

export function normalFilter(f: SearchFilter | undefined): NormalFilter {
  const kinds = f?.kind === undefined ? null : Array.isArray(f.kind) ? [...new Set(f.kind)] : [f.kind];
  if (kinds && kinds.length > MAX_KINDS) invalid(`a filter names at most ${MAX_KINDS} kinds, got ${kinds.length}`);
  if (kinds?.some((k) => typeof k !== "string")) invalid("filter kinds must be strings");
  const since = f?.since ?? Number.NEGATIVE_INFINITY;
  const until = f?.until ?? Number.POSITIVE_INFINITY;
  if (Number.isNaN(since) || Number.isNaN(until)) invalid("filter since/until must be numbers (unix ms)");
  const meta: NormalFilter["meta"] = [];
  for (const [key, value] of Object.entries(f?.meta ?? {})) {
    if (!META_KEY.test(key)) invalid(`meta filter key "${key}" must be 1–64 letters, digits, "_" or "-"`);
    if (typeof value === "boolean") meta.push([key, value ? 1 : 0]);
    else if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) {
      meta.push([key, value]);
    } else invalid(`meta filter value of "${key}" must be a string, a finite number or a boolean`);
  }
  return { kinds, since, until, meta };
}

/** A WHERE condition (always valid, "1" when empty) and its parameters. */
export function filterSql(f: NormalFilter): { where: string; params: Array<string | number> } {
  const parts: string[] = [];
  const params: Array<string | number> = [];
  if (f.kinds) {
    parts.push(f.kinds.length ? `kind IN (${f.kinds.map(() => "?").join(", ")})` : "0");
    params.push(...f.kinds);
  }
  if (f.since !== Number.NEGATIVE_INFINITY) {
    parts.push("ts >= ?");
    params.push(f.since);
  }
  if (f.until !== Number.POSITIVE_INFINITY) {
    parts.push("ts <= ?");
    params.push(f.until);
  }
  for (const [key, value] of f.meta) {
    parts.push(`json_extract(meta, '$."${key}"') = ?`);
    params.push(value);
  }
  return { where: parts.length ? parts.join(" AND ") : "1", params };
}

function invalid(message: string): never {
  throw new RetrievalError({ code: "invalid_filter", message });
}
