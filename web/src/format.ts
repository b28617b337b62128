/** Numbers as people read them: durations, byte sizes, counts, dates and times (in the UI's language). */
import type { Lang } from "./types";

const DURATION_UNITS: Record<Lang, { d: string; h: string; m: string; s: string; join: string }> = {
  en: { d: "d", h: "h", m: "m", s: "s", join: " " },
  zh: { d: "天", h: "小时", m: "分", s: "秒", join: "" },
};

/** A span of time in its two or three largest units, in the UI's language: "2h 5m 3s" / "2小时5分3秒". */
export function duration(seconds: number, lang: Lang): string {
  const u = DURATION_UNITS[lang];
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  const parts =
    d > 0
      ? [`${d}${u.d}`, `${h}${u.h}`, `${m}${u.m}`]
      : h > 0
        ? [`${h}${u.h}`, `${m}${u.m}`, `${rest}${u.s}`]
        : [`${m}${u.m}`, `${rest}${u.s}`];
  return m === 0 && h === 0 && d === 0 ? `${rest}${u.s}` : parts.join(u.join);
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** BCP 47 locales of the UI's languages, for Intl. */
const LOCALES: Record<Lang, string> = { en: "en-US", zh: "zh-CN" };
let zone: string | undefined;
const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone every date is shown in: the agent's (the session says which), so the dashboard shows the dates
 * the model reads wherever the browser is. A zone this browser does not know leaves the browser's own.
 */
export function setTimeZone(timeZone: string | undefined): void {
  try {
    zone = timeZone ? new Intl.DateTimeFormat("en", { timeZone }).resolvedOptions().timeZone : undefined;
  } catch {
    zone = undefined;
  }
  formats.clear();
}

function dateFormat(lang: Lang, style: "dateTime" | "time"): Intl.DateTimeFormat {
  const key = `${lang} ${style}`;
  let format = formats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      style === "time" ? { timeStyle: "medium" } : { dateStyle: "medium", timeStyle: "short" };
    format = new Intl.DateTimeFormat(LOCALES[lang], { ...options, timeZone: zone });
    formats.set(key, format);
  }
  return format;
}

/** A date and time in the UI's language and the agent's zone: "Dec 3, 2026, 4:36 PM" / "2026年12月3日 16:36". */
export function dateTime(ms: number, lang: Lang): string {
  return dateFormat(lang, "dateTime").format(ms);
}

/** A calendar day ("2026-12-04", the day of the agent's zone it names) in the UI's language: "Dec 4, 2026". */
export function calendarDay(day: string, lang: Lang): string {
  const at = Date.parse(`${day}T12:00:00Z`);
  if (Number.isNaN(at)) return day;
  return new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: "medium", timeZone: "UTC" }).format(at);
}

/** A time of day, likewise. */
export function clock(ms: number, lang: Lang): string {
  return dateFormat(lang, "time").format(ms);
}

/** A count with the UI language's digit grouping. */
export function count(n: number, lang: Lang): string {
  return new Intl.NumberFormat(LOCALES[lang]).format(n);
}
