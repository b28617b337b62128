/**
 * Calendar arithmetic in one IANA time zone, for turning "last week" or "2023年5月" into unix-ms ranges: a
 * day, week, month or year starts at local midnight in the user's zone, not in UTC, or "yesterday" would
 * be off by up to a day for anyone far from Greenwich. Field overflow is allowed (month 13, day 0), as
 * Date.UTC allows it, so callers can step back and forth without range checks.
 */
import { formatInZone, zoneOffset } from "../util/time-zone.js";

const DAY_MS = 86_400_000;

/** A local calendar date; `dow` is 0 = Monday … 6 = Sunday (ISO weeks, as both English and Chinese use). */
export interface LocalDate {
  y: number;
  m: number;
  d: number;
  dow: number;
}

/** Inclusive on both ends, in unix ms. */
export interface Span {
  since: number;
  until: number;
}

/** The local date of `ms` in `zone`. */
export function localDate(ms: number, zone: string): LocalDate {
  const [y, m, d] = formatInZone(ms, zone).slice(0, 10).split("-").map(Number);
  return normalise(y, m, d);
}

/** The date y-m-d with overflow resolved (e.g. 2023-13-00 → 2023-12-31). */
export function normalise(y: number, m: number, d: number): LocalDate {
  const t = new Date(Date.UTC(y, m - 1, d));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), dow: (t.getUTCDay() + 6) % 7 };
}

/** Unix ms of local midnight starting y-m-d in `zone` (overflowing fields allowed). */
export function startOfDay(y: number, m: number, d: number, zone: string): number {
  const wall = Date.UTC(y, m - 1, d);
  let t = wall - offsetMs(wall, zone);
  // The offset at the guessed instant may differ from the one at the true instant around a DST change.
  const again = wall - offsetMs(t, zone);
  if (again !== t) t = again;
  return t;
}

export function daySpan(y: number, m: number, d: number, zone: string, days = 1): Span {
  return { since: startOfDay(y, m, d, zone), until: startOfDay(y, m, d + days, zone) - 1 };
}

export function monthSpan(y: number, m: number, zone: string): Span {
  return { since: startOfDay(y, m, 1, zone), until: startOfDay(y, m + 1, 1, zone) - 1 };
}

export function yearSpan(y: number, zone: string): Span {
  return { since: startOfDay(y, 1, 1, zone), until: startOfDay(y + 1, 1, 1, zone) - 1 };
}

/** The ISO week (Monday–Sunday) `weeksBack` weeks before the one holding `date`. */
export function weekSpan(date: LocalDate, zone: string, weeksBack = 0): Span {
  return daySpan(date.y, date.m, date.d - date.dow - 7 * weeksBack, zone, 7);
}

/** `days` days either side of `centre`. */
export function around(centre: number, days: number): Span {
  return { since: centre - days * DAY_MS, until: centre + days * DAY_MS };
}

/** The most recent year in which month `m` is not after the month of `today`. */
export function pastYearOfMonth(m: number, today: LocalDate): number {
  return m > today.m ? today.y - 1 : today.y;
}

/** The most recent year in which m-d is not after `today`. */
export function pastYearOfDay(m: number, d: number, today: LocalDate): number {
  return m > today.m || (m === today.m && d > today.d) ? today.y - 1 : today.y;
}

function offsetMs(ms: number, zone: string): number {
  const text = zoneOffset(ms, zone);
  const sign = text.startsWith("-") ? -1 : 1;
  return sign * (Number(text.slice(1, 3)) * 60 + Number(text.slice(4, 6))) * 60_000;
}

export { DAY_MS };
