/**
 * Rule-based time understanding of a query, in English and Chinese: "last week", "in May 2023", "去年",
 * "三天前" → a unix-ms range in the user's zone, used to narrow or boost memory search by date. No model is
 * asked: it runs on every turn, must cost microseconds and must never invent a date. A question about a time
 * ("When did X …?", "什么时候") names no range, so it gets none. `strength` says how sure the words are
 * (an explicit date 1, "recently" 0.3); callers scale their boost by it.
 */
import {
  around,
  DAY_MS,
  daySpan,
  type LocalDate,
  localDate,
  monthSpan,
  normalise,
  pastYearOfDay,
  pastYearOfMonth,
  type Span,
  weekSpan,
  yearSpan,
} from "./time-calendar.js";

export interface TimeRange extends Span {
  /** 0–1: 1 for an explicit date, ≈ 0.7 for a relative one, 0.3 for "recently". */
  strength: number;
  /** The words that named the range, as written. */
  label: string;
}

export interface TimeQueryOptions {
  now: number;
  /** IANA zone the user's days start in, e.g. "Asia/Shanghai". */
  zone: string;
}

interface Ctx extends TimeQueryOptions {
  today: LocalDate;
}

interface Rule {
  re: RegExp;
  strength: number;
  span(m: RegExpExecArray, c: Ctx): Span | null;
}

const RECENT_DAYS = 14;
const MONTHS = [
  "jan(?:uary)?",
  "feb(?:ruary)?",
  "mar(?:ch)?",
  "apr(?:il)?",
  "may",
  "june?",
  "july?",
  "aug(?:ust)?",
  "sep(?:t(?:ember)?)?",
  "oct(?:ober)?",
  "nov(?:ember)?",
  "dec(?:ember)?",
];
const MONTH = `(${MONTHS.join("|")})\\.?`;
const MONTH_RES = MONTHS.map((m) => new RegExp(`^${m}$`, "i"));
const ORD = "(?:st|nd|rd|th)?";
const EN_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  couple: 2,
  few: 3,
  several: 3,
};
const EN_COUNT = `(\\d{1,3}|(?:a\\s+)?couple\\s+of|(?:a\\s+)?few|${Object.keys(EN_NUMBERS).join("|")})`;
const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const ZH_DIGITS: Record<string, number> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
const ZH_NUM = "(\\d{1,3}|[零一二两三四五六七八九十]{1,3}|几)";
const ZH_WEEKDAY = "([一二三四五六日天])";
const ZH_THIS_WEEK = "(?:本周|这周|本星期|这个?星期|这个?礼拜)";
const ZH_LAST_WEEK = "(?:上周|上个?星期|上个?礼拜)";

function monthOf(name: string): number {
  return MONTH_RES.findIndex((re) => re.test(name.replace(/\.$/, ""))) + 1;
}

/** "3", "three", "a couple of", "a few" → a number. */
function enCount(words: string): number {
  if (/^\d+$/.test(words)) return Number(words);
  const word = words.toLowerCase().replace(/^a\s+|\s+of$/g, "");
  return EN_NUMBERS[word] ?? 1;
}

/** 三 → 3, 十二 → 12, 二十 → 20, 两 → 2, 几 ("a few") → 3; digits as they are. */
function zhCount(word: string): number {
  if (/^\d+$/.test(word)) return Number(word);
  if (word === "几") return 3;
  const ten = word.indexOf("十");
  if (ten < 0) return ZH_DIGITS[word] ?? 1;
  const tens = ten === 0 ? 1 : (ZH_DIGITS[word.slice(0, ten)] ?? 1);
  return tens * 10 + (ZH_DIGITS[word.slice(ten + 1)] ?? 0);
}

const day = (c: Ctx, back: number) => daySpan(c.today.y, c.today.m, c.today.d - back, c.zone);
const pastDays = (c: Ctx, days: number): Span => ({ since: c.now - days * DAY_MS, until: c.now });

/** A month named without a year: "this May" is this year's, otherwise the most recent May not in the future. */
function monthNoYear(c: Ctx, m: number, which = ""): Span | null {
  if (!m) return null;
  const y = /this/i.test(which) ? c.today.y : pastYearOfMonth(m, c.today);
  return monthSpan(/last/i.test(which) && m >= c.today.m ? y - 1 : y, m, c.zone);
}

function dayNoYear(c: Ctx, m: number, d: number): Span | null {
  if (!m || d < 1 || d > 31) return null;
  return daySpan(pastYearOfDay(m, d, c.today), m, d, c.zone);
}

function validDay(y: number, m: number, d: number, c: Ctx): Span | null {
  const n = normalise(y, m, d);
  return m && n.m === m && n.d === d ? daySpan(y, m, d, c.zone) : null;
}

/** "N units ago": the calendar day, a week or month either side of that instant, or the calendar year. */
function ago(c: Ctx, n: number, unit: string): Span {
  if (/^(day|天|日)/.test(unit)) return day(c, n);
  if (/^(week|周|星期|礼拜|个星期|个礼拜)/.test(unit)) return around(c.now - 7 * n * DAY_MS, 3.5);
  if (/^(month|个月|月)/.test(unit)) {
    const t = normalise(c.today.y, c.today.m - n, 1);
    return monthSpan(t.y, t.m, c.zone);
  }
  return yearSpan(c.today.y - n, c.zone);
}

function unitDays(unit: string): number {
  if (/^(day|天|日)/.test(unit)) return 1;
  if (/^(week|周|星期|礼拜|个星期|个礼拜)/.test(unit)) return 7;
  if (/^(month|个月|月)/.test(unit)) return 30;
  return 365;
}

/** This ("this"/0) or last (1) period of a kind: week, weekend, month, year. */
function period(c: Ctx, kind: string, back: number): Span {
  if (kind === "week") return weekSpan(c.today, c.zone, back);
  if (kind === "weekend") {
    const w = weekSpan(c.today, c.zone, back);
    return { since: w.since + 5 * DAY_MS, until: w.until };
  }
  if (kind === "month") {
    const t = normalise(c.today.y, c.today.m - back, 1);
    return monthSpan(t.y, t.m, c.zone);
  }
  return yearSpan(c.today.y - back, c.zone);
}

const EN: Rule[] = [
  {
    re: /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g,
    strength: 1,
    span: (m, c) => validDay(+m[1], +m[2], +m[3], c),
  },
  {
    re: new RegExp(`\\b(\\d{1,2})${ORD}\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})\\b`, "gi"),
    strength: 1,
    span: (m, c) => validDay(+m[3], monthOf(m[2]), +m[1], c),
  },
  {
    re: new RegExp(`\\b${MONTH}\\s+(\\d{1,2})${ORD},?\\s+(\\d{4})\\b`, "gi"),
    strength: 1,
    span: (m, c) => validDay(+m[3], monthOf(m[1]), +m[2], c),
  },
  {
    re: new RegExp(`\\b${MONTH},?\\s+(?:of\\s+)?(\\d{4})\\b`, "gi"),
    strength: 1,
    span: (m, c) => (monthOf(m[1]) ? monthSpan(+m[2], monthOf(m[1]), c.zone) : null),
  },
  {
    re: /\b(?:in|during|since|from|throughout|of|year)\s+(?:the\s+year\s+)?((?:19|20)\d{2})\b/gi,
    strength: 1,
    span: (m, c) => yearSpan(+m[1], c.zone),
  },
  {
    re: new RegExp(`\\b(\\d{1,2})${ORD}\\s+(?:of\\s+)?${MONTH}\\b`, "gi"),
    strength: 0.9,
    span: (m, c) => dayNoYear(c, monthOf(m[2]), +m[1]),
  },
  {
    re: new RegExp(`\\b(?:on\\s+)?${MONTH}\\s+(\\d{1,2})${ORD}\\b(?!:)`, "gi"),
    strength: 0.9,
    span: (m, c) => (isModalMay(m[1]) ? null : dayNoYear(c, monthOf(m[1]), +m[2])),
  },
  {
    re: new RegExp(`\\b(in|during|since|last|this|early|late|mid)[\\s-]+${MONTH}\\b`, "gi"),
    strength: 0.9,
    span: (m, c) => (isModalMay(m[2]) ? null : monthNoYear(c, monthOf(m[2]), m[1])),
  },
  { re: /\b(?:today|tonight|this (?:morning|afternoon|evening))\b/gi, strength: 0.8, span: (_m, c) => day(c, 0) },
  { re: /\b(?:yesterday|last night)\b/gi, strength: 0.8, span: (_m, c) => day(c, 1) },
  { re: /\bthe day before yesterday\b/gi, strength: 0.8, span: (_m, c) => day(c, 2) },
  {
    re: /\b(this|last|previous)\s+(week|weekend|month|year)\b/gi,
    strength: 0.8,
    span: (m, c) => period(c, m[2].toLowerCase(), /this/i.test(m[1]) ? 0 : 1),
  },
  {
    re: new RegExp(`\\b(?:the\\s+)?(?:past|last)\\s+${EN_COUNT}\\s+(day|week|month|year)s?\\b`, "gi"),
    strength: 0.7,
    span: (m, c) => pastDays(c, enCount(m[1]) * unitDays(m[2])),
  },
  {
    re: /\b(?:the\s+)?past\s+(week|month|year)\b/gi,
    strength: 0.7,
    span: (m, c) => pastDays(c, unitDays(m[1])),
  },
  {
    re: new RegExp(`\\b${EN_COUNT}\\s+(day|week|month|year)s?\\s+ago\\b`, "gi"),
    strength: 0.7,
    span: (m, c) => ago(c, enCount(m[1]), m[2].toLowerCase()),
  },
  {
    re: new RegExp(`\\b(last|on|this\\s+past)\\s+(${WEEKDAYS.join("|")})\\b`, "gi"),
    strength: 0.7,
    span: (m, c) => {
      const dow = WEEKDAYS.indexOf(m[2].toLowerCase());
      const back = (c.today.dow - dow + 7) % 7 || (/on/i.test(m[1]) ? 0 : 7);
      return day(c, back);
    },
  },
  {
    re: /\b(?:recently|lately|these days|the other day|in recent (?:days|weeks))\b/gi,
    strength: 0.3,
    span: (_m, c) => pastDays(c, RECENT_DAYS),
  },
];

const ZH: Rule[] = [
  {
    re: /(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/g,
    strength: 1,
    span: (m, c) => validDay(+m[1], +m[2], +m[3], c),
  },
  {
    re: new RegExp(`(\\d{4})\\s*年\\s*${ZH_NUM}\\s*月`, "g"),
    strength: 1,
    span: (m, c) => monthSpan(+m[1], zhCount(m[2]), c.zone),
  },
  { re: /(\d{4})\s*年(?!\s*\d)/g, strength: 1, span: (m, c) => yearSpan(+m[1], c.zone) },
  {
    re: new RegExp(`(?<![年\\d个零一二两三四五六七八九十])${ZH_NUM}\\s*月\\s*${ZH_NUM}\\s*[日号]`, "g"),
    strength: 0.9,
    span: (m, c) => dayNoYear(c, zhCount(m[1]), zhCount(m[2])),
  },
  {
    re: new RegExp(
      `(?<![年\\d个几零一二两三四五六七八九十])${ZH_NUM}\\s*月份?(?![\\d零一二两三四五六七八九十]|前)`,
      "g",
    ),
    strength: 0.9,
    span: (m, c) => (m[1] === "几" ? null : monthNoYear(c, zhCount(m[1]))),
  },
  { re: /今天|今日|今晚|今早/g, strength: 0.8, span: (_m, c) => day(c, 0) },
  { re: /昨天|昨日|昨晚|昨夜/g, strength: 0.8, span: (_m, c) => day(c, 1) },
  { re: /(?<!大)前天/g, strength: 0.8, span: (_m, c) => day(c, 2) },
  { re: /大前天/g, strength: 0.8, span: (_m, c) => day(c, 3) },
  {
    re: new RegExp(`(${ZH_THIS_WEEK}|${ZH_LAST_WEEK})${ZH_WEEKDAY}`, "g"),
    strength: 0.8,
    span: (m, c) => {
      const dow = "一二三四五六".indexOf(m[2]);
      const w = weekSpan(c.today, c.zone, m[1].startsWith("上") ? 1 : 0);
      return { since: w.since + (dow < 0 ? 6 : dow) * DAY_MS, until: w.since + ((dow < 0 ? 6 : dow) + 1) * DAY_MS - 1 };
    },
  },
  { re: new RegExp(`${ZH_LAST_WEEK}末`, "g"), strength: 0.8, span: (_m, c) => period(c, "weekend", 1) },
  { re: new RegExp(`${ZH_THIS_WEEK}末`, "g"), strength: 0.8, span: (_m, c) => period(c, "weekend", 0) },
  { re: new RegExp(ZH_LAST_WEEK, "g"), strength: 0.8, span: (_m, c) => period(c, "week", 1) },
  { re: new RegExp(ZH_THIS_WEEK, "g"), strength: 0.8, span: (_m, c) => period(c, "week", 0) },
  { re: /上个?月/g, strength: 0.8, span: (_m, c) => period(c, "month", 1) },
  { re: /本月|这个?月/g, strength: 0.8, span: (_m, c) => period(c, "month", 0) },
  { re: /今年/g, strength: 0.8, span: (_m, c) => period(c, "year", 0) },
  { re: /去年/g, strength: 0.8, span: (_m, c) => period(c, "year", 1) },
  { re: /前年/g, strength: 0.8, span: (_m, c) => period(c, "year", 2) },
  {
    re: new RegExp(`(?:过去|最近|近)\\s*${ZH_NUM}\\s*(天|日|周|个?星期|个?礼拜|个月|年)`, "g"),
    strength: 0.7,
    span: (m, c) => pastDays(c, zhCount(m[1]) * unitDays(m[2].replace(/^个(?=星期|礼拜)/, ""))),
  },
  {
    re: new RegExp(`${ZH_NUM}\\s*(天|日|周|个星期|个礼拜|星期|个月|年)(?:之|以)?前`, "g"),
    strength: 0.7,
    span: (m, c) =>
      m[1] === "几" ? pastDays(c, 3 * unitDays(m[2]) + 1) : ago(c, zhCount(m[1]), m[2].replace(/^个(?=星期|礼拜)/, "")),
  },
  {
    re: /最近|近来|近期|近日|这几天|这些天|前几天|前些天|前阵子|前段时间|不久前/g,
    strength: 0.3,
    span: (_m, c) => pastDays(c, RECENT_DAYS),
  },
];

const RULES = [...EN, ...ZH];

/** "may" that is the verb ("May I …", "you may 3 …"), not the month: the month is written with a capital. */
function isModalMay(word: string): boolean {
  return /^may$/i.test(word) && word !== "May";
}

interface Found extends TimeRange {
  index: number;
}

/**
 * The time range a query names, or null. When it names several, the surest wins, then the longest
 * ("in May 2023" over "in May"), then the first. "since X" runs from X to now.
 */
export function parseTimeQuery(text: string, opts: TimeQueryOptions): TimeRange | null {
  if (!text) return null;
  const c: Ctx = { ...opts, today: localDate(opts.now, opts.zone) };
  let best: Found | null = null;
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) {
      const span = rule.span(m, c);
      if (!span || span.since > opts.now) continue;
      const found: Found = { ...span, strength: rule.strength, label: m[0].trim(), index: m.index };
      if (!best || better(found, best)) best = found;
    }
  }
  if (!best) return null;
  const { index, ...range } = best;
  if (/^since\b/i.test(range.label) || /(?:\bsince|自从?|从)\s*$/i.test(text.slice(0, index)))
    range.until = Math.max(range.until, opts.now);
  return range;
}

function better(a: Found, b: Found): boolean {
  if (a.strength !== b.strength) return a.strength > b.strength;
  if (a.label.length !== b.label.length) return a.label.length > b.label.length;
  return a.index < b.index;
}
