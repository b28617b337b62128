/**
 * Today's LLM use per source, hour by hour, in the daemon's time zone: what the Overview charts. Pure (no
 * IO, the clock and the zone are handed in) so that the daemon can persist it and tests can move time.
 *
 * Bounded: at most `maxSources` names per day (later names add up under "(other)") × 24 hours, and two
 * days — today and the most recent other day, so that a time-zone change that steps back across midnight
 * finds that day's figures again instead of starting it afresh.
 */
import type { LlmSourceUsage, LlmUsageToday } from "@homeagent/sdk";
import { HomeAgentError } from "../util/errors.js";
import { isObject } from "../util/object.js";
import { formatInZone } from "../util/time-zone.js";

const MAX_METERED_SOURCES = 16;
export const OTHER_SOURCES = "(other)";
const USAGE_FORMAT = 1;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const MAX_NAME_CHARS = 200;
/** Counts stop here rather than become inexact (or be refused when read back): 2^53−1 is far beyond a day's use. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;
/** Natural order, as people number things: src2 before src10; Chinese names by the default collation. */
const BY_NAME = new Intl.Collator(undefined, { numeric: true });

/** What one call or turn adds. */
interface Counts {
  turns: number;
  calls: number;
  callsWithoutUsage: number;
  promptTokens: number;
  completionTokens: number;
}

const FIELDS = ["turns", "calls", "callsWithoutUsage", "promptTokens", "completionTokens"] as const;

/** source → hour → counts */
type Day = Map<string, Map<number, Counts>>;

/** The file form (see toJSON / restore). */
export interface UsageData {
  format: typeof USAGE_FORMAT;
  days: Array<{ day: string; sources: Array<{ name: string; hours: Array<Counts & { hour: number }> }> }>;
}

export interface UsageMeterOptions {
  /** IANA zone of "today"; read at every call, so a changed setting applies at once. */
  zone: () => string;
  now?: () => number;
  maxSources?: number;
  /** Told after every change (the daemon schedules a write). */
  onChange?: () => void;
}

export class UsageMeter {
  private readonly days = new Map<string, Day>();
  private readonly now: () => number;
  private readonly maxSources: number;

  constructor(private readonly opts: UsageMeterOptions) {
    this.now = opts.now ?? Date.now;
    this.maxSources = opts.maxSources ?? MAX_METERED_SOURCES;
  }

  /** One successful call; `usage` null (or all zero) = the provider reported none. */
  recordCall(source: string, usage: { prompt: number; completion: number } | null): void {
    const prompt = tokens(usage?.prompt);
    const completion = tokens(usage?.completion);
    const reported = prompt + completion > 0;
    this.add(source, {
      turns: 0,
      calls: 1,
      callsWithoutUsage: reported ? 0 : 1,
      promptTokens: prompt,
      completionTokens: completion,
    });
  }

  /** A turn answered, counted for the source of its final LLM reply. */
  recordTurn(source: string): void {
    this.add(source, { turns: 1, calls: 0, callsWithoutUsage: 0, promptTokens: 0, completionTokens: 0 });
  }

  today(): LlmUsageToday {
    const timeZone = this.opts.zone();
    const { day, hour } = localHour(this.now(), timeZone);
    const counts = this.days.get(day) ?? new Map();
    const sources = [...counts.entries()].map(([name, hours]) => sourceUsage(name, hours));
    sources.sort((a, b) => rank(a.name) - rank(b.name) || BY_NAME.compare(a.name, b.name));
    return { day, timeZone, hour, sources };
  }

  toJSON(): UsageData {
    return {
      format: USAGE_FORMAT,
      days: [...this.days.entries()].map(([day, sources]) => ({
        day,
        sources: [...sources.entries()].map(([name, hours]) => ({
          name,
          hours: [...hours.entries()].map(([hour, c]) => ({ hour, ...c })),
        })),
      })),
    };
  }

  /**
   * Adds what toJSON wrote (after a restart); throws usage_file_invalid, changing nothing, for anything
   * else. The bounds apply as they do to new figures.
   */
  restore(data: unknown): void {
    const days = parseUsage(data);
    for (const { day, sources } of days) {
      for (const { name, hours } of sources) {
        for (const { hour, ...counts } of hours) this.addTo(day, name, hour, counts);
      }
    }
    this.keepDays(
      days
        .map((d) => d.day)
        .sort()
        .at(-1) ?? "",
    );
  }

  private add(source: string, counts: Counts): void {
    const { day, hour } = localHour(this.now(), this.opts.zone());
    this.addTo(day, source, hour, counts);
    this.keepDays(day);
    this.opts.onChange?.();
  }

  private addTo(day: string, source: string, hour: number, counts: Counts): void {
    let sources = this.days.get(day);
    if (!sources) {
      sources = new Map();
      this.days.set(day, sources);
    }
    const name = sources.has(source) || sources.size < this.maxSources ? source : OTHER_SOURCES;
    let hours = sources.get(name);
    if (!hours) {
      hours = new Map();
      sources.set(name, hours);
    }
    const bucket = hours.get(hour);
    if (!bucket) hours.set(hour, { ...counts });
    else for (const f of FIELDS) bucket[f] = sum(bucket[f], counts[f]);
  }

  /** Keeps `current` and the latest other day. */
  private keepDays(current: string): void {
    const others = [...this.days.keys()].filter((d) => d !== current).sort();
    for (const day of others.slice(0, -1)) this.days.delete(day);
  }
}

/** The local date and hour of `ms` in `zone`. */
function localHour(ms: number, zone: string): { day: string; hour: number } {
  const text = formatInZone(ms, zone);
  return { day: text.slice(0, 10), hour: Number(text.slice(11, 13)) };
}

function sourceUsage(name: string, hours: Map<number, Counts>): LlmSourceUsage {
  const total: Counts = { turns: 0, calls: 0, callsWithoutUsage: 0, promptTokens: 0, completionTokens: 0 };
  const byHour = [...hours.entries()]
    .sort(([a], [b]) => a - b)
    .map(([hour, c]) => {
      for (const f of FIELDS) total[f] = sum(total[f], c[f]);
      return { hour, turns: c.turns, promptTokens: c.promptTokens, completionTokens: c.completionTokens };
    });
  return { name, ...total, byHour };
}

/** "(other)" after every named source. */
function rank(name: string): number {
  return name === OTHER_SOURCES ? 1 : 0;
}

function sum(a: number, b: number): number {
  return Math.min(a + b, MAX_COUNT);
}

function tokens(n: number | undefined): number {
  const whole = typeof n === "number" && n > 0 && (Number.isInteger(n) || n === Number.POSITIVE_INFINITY);
  return whole ? Math.min(n, MAX_COUNT) : 0;
}

function parseUsage(data: unknown): UsageData["days"] {
  if (!isObject(data) || data.format !== USAGE_FORMAT || !Array.isArray(data.days) || data.days.length > 2) {
    throw invalid(`expected {"format": ${USAGE_FORMAT}, "days": [at most 2 days]}`);
  }
  return data.days.map((d) => {
    if (!isObject(d) || typeof d.day !== "string" || !DAY_PATTERN.test(d.day) || !Array.isArray(d.sources)) {
      throw invalid('a day needs "day" (YYYY-MM-DD) and "sources"');
    }
    return { day: d.day, sources: d.sources.map(parseSource) };
  });
}

function parseSource(s: unknown): UsageData["days"][number]["sources"][number] {
  if (!isObject(s) || typeof s.name !== "string" || !s.name || s.name.length > MAX_NAME_CHARS) {
    throw invalid(`a source needs a "name" of 1 to ${MAX_NAME_CHARS} characters`);
  }
  if (!Array.isArray(s.hours) || s.hours.length > 24) throw invalid(`source ${s.name}: "hours" must list at most 24`);
  return { name: s.name, hours: s.hours.map((h) => parseHour(s.name as string, h)) };
}

function parseHour(name: string, h: unknown): Counts & { hour: number } {
  if (!isObject(h) || !Number.isInteger(h.hour) || (h.hour as number) < 0 || (h.hour as number) > 23) {
    throw invalid(`source ${name}: an hour needs "hour" from 0 to 23`);
  }
  const out = { hour: h.hour as number } as Counts & { hour: number };
  for (const f of FIELDS) {
    const v = h[f];
    // Past 2^53 (or so large that JSON read it as Infinity) a count is kept at the cap, not the day thrown away.
    if (typeof v !== "number" || v < 0 || !(Number.isInteger(v) || v === Number.POSITIVE_INFINITY)) {
      throw invalid(`source ${name}, hour ${out.hour}: "${f}" must be a whole number ≥ 0`);
    }
    out[f] = Math.min(v, MAX_COUNT);
  }
  return out;
}

function invalid(detail: string): HomeAgentError {
  return new HomeAgentError({ code: "usage_file_invalid", message: `not a usage file written by homed: ${detail}` });
}
