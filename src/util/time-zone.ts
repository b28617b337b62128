/**
 * Dates in one IANA time zone (the user's, `core.agent.timezone`). Every timestamp the model reads must be
 * in the same zone as "Current time", with its date, or it cannot tell a week-old event from a new one.
 *
 * Intl is slow (tens of µs per formatToParts, hundreds per new formatter) and a prompt dates dozens of
 * rows per turn, so a zone's UTC offset is measured once per day (per 15-minute slice of a day on which it
 * changes — offsets only change on quarter-hour boundaries) and dates are then plain arithmetic.
 */

const SLICE_MS = 15 * 60_000;
const DAY_MS = 86_400_000;
const MAX_CACHED = 4096;
const offsets = new Map<string, number>();
const formatters = new Map<string, Intl.DateTimeFormat>();
const knownZones = new Set<string>();
let system: { tz: string | undefined; zone: string } | undefined;

/** The zone the process runs in (TZ, else the system's); "UTC" when the runtime cannot tell. */
export function systemTimeZone(): string {
  const tz = process.env.TZ;
  if (!system || system.tz !== tz) system = { tz, zone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC" };
  return system.zone;
}

/** Whether `name` is a time zone this runtime knows, e.g. "Asia/Shanghai" or "UTC". */
export function isTimeZone(name: string): boolean {
  if (!name) return false;
  if (knownZones.has(name)) return true;
  try {
    formatter(name);
  } catch {
    return false;
  }
  if (knownZones.size < MAX_CACHED) knownZones.add(name);
  return true;
}

/** `2025-01-31 08:05:09` in `zone`. */
export function formatInZone(ms: number, zone: string): string {
  const d = new Date(ms + offsetMinutes(ms, zone) * 60_000);
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return `${date} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** The zone's UTC offset at `ms`, e.g. `+08:00`, `-04:00`, `+00:00`. */
export function zoneOffset(ms: number, zone: string): string {
  const minutes = offsetMinutes(ms, zone);
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function offsetMinutes(ms: number, zone: string): number {
  const day = dayOffset(ms, zone);
  return Number.isNaN(day) ? sliceOffset(ms, zone) : day;
}

/**
 * The zone's offset for the whole UTC day of `ms`, or NaN on a day it changes: equal offsets at a day's
 * first and last millisecond mean no change in between (a zone's changes are months apart). A prompt's
 * rows span months, and one entry per day keeps a year of them in the cache where 15-minute slices did not.
 */
function dayOffset(ms: number, zone: string): number {
  const start = Math.floor(ms / DAY_MS) * DAY_MS;
  const key = `${zone}@day${start}`;
  let minutes = offsets.get(key);
  if (minutes === undefined) {
    const first = measureOffset(start, zone);
    minutes = first === measureOffset(start + DAY_MS - 1, zone) ? first : Number.NaN;
    if (offsets.size >= MAX_CACHED) offsets.clear();
    offsets.set(key, minutes);
  }
  return minutes;
}

function sliceOffset(ms: number, zone: string): number {
  const key = `${zone}@${Math.floor(ms / SLICE_MS)}`;
  let minutes = offsets.get(key);
  if (minutes === undefined) {
    minutes = measureOffset(ms, zone);
    if (offsets.size >= MAX_CACHED) offsets.clear();
    offsets.set(key, minutes);
  }
  return minutes;
}

/** Reads the zone's wall clock at `ms` and compares it with UTC. */
function measureOffset(ms: number, zone: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(ms)) {
    if (part.type !== "literal") p[part.type] = Number(part.value);
  }
  // Older ICU builds say 24 at midnight even with hourCycle h23.
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour % 24, p.minute, p.second);
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    if (formatters.size < MAX_CACHED) formatters.set(zone, f);
  }
  return f;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** The configured zone when this runtime knows it, else the system's (the caller warns about a bad one). */
export function userZone(configured: string): string {
  return configured && isTimeZone(configured) ? configured : systemTimeZone();
}
