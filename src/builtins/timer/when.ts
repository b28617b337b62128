/**
 * When a timer fires: `in` ("5s", "2m", "1h30m", "2d"), `at` (a local date-time in the user's zone, a time of
 * day, or ISO 8601 with an offset) or `cron` (five fields, evaluated by croner in the user's zone, so 09:00
 * stays 09:00 across DST changes and follows a change of core.agent.timezone). Every refusal says what to
 * write instead.
 */
import { SdkError } from "@homeagent/sdk";
import { Cron } from "croner";

/** A time the user (or the model) wrote that cannot be read; the message says what to write instead. */
export class WhenError extends SdkError {
  constructor(message: string) {
    super({ code: "invalid_argument", message });
  }
}

const UNIT_MS: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
const IN_PATTERN = /^(?:(\d{1,4})d)?(?:(\d{1,5})h)?(?:(\d{1,6})m)?(?:(\d{1,7})s)?$/;

/** "1h30m" → milliseconds. */
export function parseIn(text: string): number {
  const m = IN_PATTERN.exec(text.trim().toLowerCase());
  if (!m || m.slice(1).every((p) => p === undefined)) {
    throw new WhenError(`"in" is a duration such as 5s, 2m, 1h30m or 2d, not ${JSON.stringify(text)}`);
  }
  const [d, h, mi, s] = m.slice(1).map((p) => Number(p ?? 0));
  return d * UNIT_MS.d + h * UNIT_MS.h + mi * UNIT_MS.m + s * UNIT_MS.s;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{1,2}):(\d{2})(?::(\d{2}))?$/;
const TIME_OF_DAY = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;
const WITH_OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/** The instant of `at` in `zone`; a time of day alone is its next occurrence after `now`. */
export function parseAt(text: string, zone: string, now: number): number {
  const t = text.trim();
  if (WITH_OFFSET.test(t)) {
    const ms = Date.parse(t);
    if (Number.isNaN(ms)) throw atError(text);
    return ms;
  }
  const local = LOCAL.exec(t);
  if (local) {
    const [y, mo, d, h, mi, s] = local.slice(1).map((p) => Number(p ?? 0));
    return zonedToUtc({ y, mo, d, h, mi, s }, zone, text);
  }
  const day = TIME_OF_DAY.exec(t);
  if (!day) throw atError(text);
  const [h, mi, s] = day.slice(1).map((p) => Number(p ?? 0));
  const today = localParts(now, zone);
  const at = zonedToUtc({ ...today, h, mi, s }, zone, text);
  if (at > now) return at;
  const tomorrow = localParts(now + 86_400_000, zone);
  return zonedToUtc({ ...tomorrow, h, mi, s }, zone, text);
}

function atError(text: string): WhenError {
  return new WhenError(
    `"at" is a local date-time (2026-12-24 18:00), a time of day (18:00) or ISO 8601 with an offset (2026-12-24T18:00+08:00), not ${JSON.stringify(text)}`,
  );
}

interface LocalTime {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

/** The date and time on a wall clock in `zone` at instant `ms`. */
export function localParts(ms: number, zone: string): LocalTime {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(ms);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { y: get("year"), mo: get("month"), d: get("day"), h: get("hour"), mi: get("minute"), s: get("second") };
}

/** How far `zone`'s clock is ahead of UTC at `ms`. */
function offsetAt(ms: number, zone: string): number {
  const p = localParts(ms, zone);
  return Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant a wall clock in `zone` shows `t`. A time skipped by a DST change (02:30 when clocks jump from
 * 02:00 to 03:00) is read as the same time after the jump; a time shown twice is its first occurrence.
 */
export function zonedToUtc(t: LocalTime, zone: string, text: string): number {
  if (t.mo < 1 || t.mo > 12 || t.d < 1 || t.d > 31 || t.h > 23 || t.mi > 59 || t.s > 59) throw atError(text);
  const wall = Date.UTC(t.y, t.mo - 1, t.d, t.h, t.mi, t.s);
  // The zone's offsets half a day either side: the same unless a DST change falls in between.
  const before = wall - offsetAt(wall - 43_200_000, zone);
  const after = wall - offsetAt(wall + 43_200_000, zone);
  for (const candidate of [Math.min(before, after), Math.max(before, after)]) {
    const shown = localParts(candidate, zone);
    if (shown.d === t.d && shown.h === t.h && shown.mi === t.mi) return candidate;
  }
  return before;
}

/** The next run of a five-field cron expression after `after`, in `zone`; throws WhenError on a bad one. */
export function nextCron(expression: string, zone: string, after: number): number {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw new WhenError(
      `"cron" has five fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5", not ${JSON.stringify(expression)}`,
    );
  }
  let job: Cron;
  try {
    job = new Cron(fields.join(" "), { timezone: zone, paused: true });
  } catch (err) {
    throw new WhenError(`"cron" ${JSON.stringify(expression)} is not valid: ${(err as Error).message}`);
  }
  const next = job.nextRun(new Date(after));
  job.stop();
  if (!next) throw new WhenError(`"cron" ${JSON.stringify(expression)} never runs again`);
  return next.getTime();
}

/** "2026-12-24 18:00" on the wall clock of `zone`. */
export function formatLocal(ms: number, zone: string): string {
  const p = localParts(ms, zone);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${p.y}-${two(p.mo)}-${two(p.d)} ${two(p.h)}:${two(p.mi)}${p.s ? `:${two(p.s)}` : ""}`;
}
