/**
 * What the Settings tab shows, worked out apart from the page so it can be tested without a browser: which
 * group and card each definition belongs on, its label and description in the UI's language, whether it
 * matches a search (in both languages, and by key), and the value editors' splitting of durations and
 * byte sizes into an amount and a unit.
 */
import type { ConfigDefInfo, Lang } from "./types.js";

/** The groups of the page, in order; a plugin's card sits in its category's group, else in "plugins". */
export const GROUPS = ["models", "agent", "memory", "access", "system", "plugins"] as const;
export type GroupId = (typeof GROUPS)[number];

export const SOURCE_PREFIX = "core.llm.sources.";
export const SOURCE_TEMPLATE = `${SOURCE_PREFIX}*.`;
const PLUGIN_KEY = /^plugin\.([^.]+)\./;

export interface SettingCard {
  id: string;
  group: GroupId;
  /** The plugin whose settings these are; undefined for the daemon's own. */
  plugin?: string;
  defs: ConfigDefInfo[];
}

/** The definitions that are not templates, as cards: one per core group, one per plugin. */
export function settingCards(defs: readonly ConfigDefInfo[]): SettingCard[] {
  const cards = new Map<string, SettingCard>();
  for (const def of defs) {
    if (def.key.includes("*")) continue;
    const plugin = PLUGIN_KEY.exec(def.key)?.[1];
    const group = groupOf(def.category, plugin ? "plugins" : "system");
    const id = plugin ? `plugin-${plugin}` : `group-${group}`;
    const card = cards.get(id) ?? { id, group, plugin, defs: [] };
    card.defs.push(def);
    cards.set(id, card);
  }
  return [...cards.values()].sort(
    (a, b) => GROUPS.indexOf(a.group) - GROUPS.indexOf(b.group) || Number(!!a.plugin) - Number(!!b.plugin),
  );
}

function groupOf(category: string | undefined, fallback: GroupId): GroupId {
  return (GROUPS as readonly string[]).includes(category ?? "") ? (category as GroupId) : fallback;
}

/** A definition's label and description in `lang`; English where there is no translation, the key without a label. */
export function defText(def: ConfigDefInfo, lang: Lang): { label: string; description: string } {
  const zh = lang === "zh" ? def.translations?.zh : undefined;
  return {
    label: zh?.displayName || def.displayName || def.key,
    description: zh?.description || def.description,
  };
}

/**
 * Whether every word of `query` occurs in the definition's key, label or description, in either language
 * (a Chinese query has no spaces: it is one word, found as a part of the text).
 */
export function matchesQuery(def: ConfigDefInfo, query: string, key = def.key): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const zh = def.translations?.zh;
  const text = [key, def.displayName, def.description, zh?.displayName, zh?.description]
    .filter(Boolean)
    .join("\n")
    .toLowerCase();
  return words.every((w) => text.includes(w));
}

export interface Amount<U extends string> {
  amount: string;
  unit: U;
}

/** Duration units as the config center writes them (Go syntax), largest first. */
export const DURATION_UNITS = ["h", "m", "s", "ms"] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];
const DURATION_MS: Record<DurationUnit, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
const DURATION_PART = /(\d+\.?\d*|\.\d+)(ms|h|m|s)/g;

/**
 * A duration in the largest unit that holds it in whole numbers ("90s" stays 90 s, "120m" is 2 h); null for
 * what the editor cannot show as one amount (nanoseconds, a bad value): the raw text is edited then.
 */
export function splitDuration(value: string): Amount<DurationUnit> | null {
  if (value === "0") return { amount: "0", unit: "s" };
  if (isOneOf(DURATION_UNITS, value)) return { amount: "", unit: value };
  if (!/^((\d+\.?\d*|\.\d+)(ms|h|m|s))+$/.test(value)) return null;
  let ms = 0;
  for (const [, num, unit] of value.matchAll(DURATION_PART)) ms += Number(num) * DURATION_MS[unit as DurationUnit];
  if (!Number.isInteger(ms)) return null;
  const unit = DURATION_UNITS.find((u) => ms % DURATION_MS[u] === 0) ?? "ms";
  return { amount: String(ms / DURATION_MS[unit]), unit };
}

/**
 * An amount and unit back to the config center's syntax. An emptied amount becomes the bare unit, so the
 * unit chosen survives while the user types (and the server refuses it, with its reason, if saved so).
 */
export function joinDuration({ amount, unit }: Amount<DurationUnit>): string {
  const n = amount.trim();
  return n === "0" ? "0" : `${n}${unit}`;
}

export const BYTE_UNITS = ["bytes", "KiB", "MiB"] as const;
export type ByteUnit = (typeof BYTE_UNITS)[number];
const BYTES: Record<ByteUnit, number> = { bytes: 1, KiB: 1024, MiB: 1024 * 1024 };

/** A number of bytes in the largest unit that holds it whole (4194304 → 4 MiB); null for what is not a count. */
export function splitBytes(value: string): Amount<ByteUnit> | null {
  if (isOneOf(BYTE_UNITS, value)) return { amount: "", unit: value };
  if (!/^\d+$/.test(value)) return null;
  const n = Number(value);
  const unit = [...BYTE_UNITS].reverse().find((u) => n !== 0 && n % BYTES[u] === 0) ?? "bytes";
  return { amount: String(n / BYTES[unit]), unit };
}

/**
 * Back to a count of bytes; an emptied amount as the bare unit (see joinDuration), anything else that is not
 * a whole count as typed, for the server to refuse with its reason.
 */
export function joinBytes({ amount, unit }: Amount<ByteUnit>): string {
  const n = amount.trim();
  if (n === "") return unit;
  return /^\d+(\.\d+)?$/.test(n) && Number.isInteger(Number(n) * BYTES[unit]) ? String(Number(n) * BYTES[unit]) : n;
}

function isOneOf<U extends string>(units: readonly U[], value: string): value is U {
  return (units as readonly string[]).includes(value);
}

/** The names of the sources that have at least one value (stored or from the environment). */
export function sourceNames(keys: readonly string[]): string[] {
  const names = new Set<string>();
  for (const key of keys) {
    if (!key.startsWith(SOURCE_PREFIX)) continue;
    const name = key.slice(SOURCE_PREFIX.length).split(".")[0];
    if (name && name !== "*") names.add(name);
  }
  return [...names].sort();
}
