/**
 * Chinese rules: 我叫X / 我住在X / 我喜欢X / 我X岁 / 我的工作是X (the architecture document's five) and close
 * variants (我是X人, 我在X工作, 我爱X, 我今年X岁 …). Each rule matches a clause from its start after fillers
 * (其实, 对了, 嗯 …); "我妈妈住在上海", "我们住在…" and "我3岁的时候" do not match.
 */
import { ZH_JOB_SUFFIXES, ZH_JOBS, ZH_NOT_JOBS, ZH_NOT_NAMES, ZH_PRONOUNS, ZH_SURNAMES } from "./lexicon.js";
import { REL, type Relation, type RuleHit } from "./triple.js";

const FILLERS =
  /^(?:(?:其实|另外|对了|嗯+|哦+|啊+|你好|您好|嗨|哈哈+|那个|然后|而且|还有|顺便说一下|顺便说|顺便|告诉你|跟你说|说真的|老实说|话说)[,，、\s!！~]*)+/;
// Adverbs between 我 and the verb: 我现在住在…, 我也很喜欢…, 我今年…
const ADV =
  "(?:现在|目前|一直|也|还|都|就|已经|真的|很|非常|特别|最|超|挺|比较|蛮|十分|真|确实|本人|平时|其实|从小|今年)*";
const N = "(\\d{1,3}|[零一二三四五六七八九十百两]{1,4})";

type Check = "name" | "place" | "thing" | "job" | "org" | "age";

interface Rule {
  re: RegExp;
  relation: Relation;
  check: Check;
}

const rule = (src: string, relation: Relation, check: Check): Rule => ({ re: new RegExp(`^${src}$`), relation, check });

// Order matters: 不喜欢 before 喜欢; 我是X人 (origin) and 我是<job> before 我是<name>.
const RULES: Rule[] = [
  rule(`我${ADV}(?:今年|现在)?${ADV}${N}(?:周)?岁(.*)`, REL.age, "age"),
  rule(`我的年龄是${N}岁?(.*)`, REL.age, "age"),
  rule("我的?(?:名字|姓名)(?:是|叫)(.+)", REL.name, "name"),
  rule("我(?:叫|名叫|叫做)(.+)", REL.name, "name"),
  rule("(?:你可以|大家都|你就|大家|朋友们都|你们可以)?叫我(.+)", REL.name, "name"),
  rule(`我${ADV}(?:住在|居住在|定居在|生活在|住)(.+)`, REL.residence, "place"),
  rule("我家(?:住)?在(.+)", REL.residence, "place"),
  rule(`我${ADV}(?:搬家|搬)(?:到|去)了?(.+)`, REL.residence, "place"),
  rule(`我${ADV}在(.+?)(?:住|生活|定居)(?:了.*)?`, REL.residence, "place"),
  rule(`我${ADV}来自(.+)`, REL.origin, "place"),
  rule(`我${ADV}是(.+?)人`, REL.origin, "place"),
  rule("我(?:的)?老家(?:在|是)(.+)", REL.origin, "place"),
  rule(`我${ADV}(?:出生|生)在(.+)`, REL.origin, "place"),
  rule(`我${ADV}在(.+?)(?:出生|长大)的?`, REL.origin, "place"),
  rule("我最喜欢的.{0,6}?是(.+)", REL.likes, "thing"),
  rule(`我${ADV}(?:不喜欢|不太喜欢|不爱|讨厌|受不了|厌恶|反感|怕)(.+)`, REL.dislikes, "thing"),
  rule(`我${ADV}(?:喜欢|爱|热爱|喜爱|迷上了|迷恋|钟爱|爱上了|喜欢上了)(.+)`, REL.likes, "thing"),
  rule("我的(?:爱好|兴趣|兴趣爱好|业余爱好)(?:是|有)(.+)", REL.likes, "thing"),
  rule(`我${ADV}对(.+?)(?:很|非常|特别|超)?(?:感兴趣|有兴趣)`, REL.likes, "thing"),
  rule("我的(?:工作|职业)是(.+)", REL.job, "thing"),
  rule(`我${ADV}从事(.+?)(?:工作|行业|职业)?`, REL.job, "thing"),
  rule(`我${ADV}(?:做|干|当)(.+?)(?:的|工作)`, REL.job, "thing"),
  rule(`我${ADV}(?:是|当)(?:一个|一名|一位|个|名|位)?(.+?)`, REL.job, "job"),
  rule(`我${ADV}在(.+?)(?:工作|上班|任职|实习|打工)(?:.*)`, REL.workplace, "org"),
  rule("我的(?:公司|单位)是(.+)", REL.workplace, "org"),
  rule("我是(.+)", REL.name, "name"),
];

/** The facts of one Chinese clause. */
export function matchChinese(raw: string): RuleHit[] {
  const clause = raw.replace(FILLERS, "").replace(/\s+/g, "");
  for (const r of RULES) {
    const m = r.re.exec(clause);
    if (!m) continue;
    const hits = objects(m, r);
    if (hits.length > 0) return hits;
  }
  return [];
}

function objects(m: RegExpExecArray, r: Rule): RuleHit[] {
  const one = (object: string | null): RuleHit[] => (object ? [{ relation: r.relation, object }] : []);
  switch (r.check) {
    case "age":
      return one(ageObject(m[1], m[2]));
    case "name":
      return one(nameObject(m[1], r.re.source.startsWith("^我是")));
    case "place":
      return one(placeObject(m[1]));
    case "job":
      return one(isJob(clean(m[1])) ? clean(m[1]) : null);
    case "org":
      return one(orgObject(m[1]));
    case "thing":
      return thingObjects(m[1]).map((object) => ({ relation: r.relation, object }));
  }
}

/** 我3岁的时候 / 我20岁那年 speak of the past, not of the age now. */
function ageObject(num: string, after: string): string | null {
  if (/^(?:的时候|时|那年|那时|以前|之前|前|的孩子|的儿子|的女儿|生日)/.test(after ?? "")) return null;
  const n = /^\d+$/.test(num) ? Number(num) : chineseNumber(num);
  return n !== null && n >= 1 && n <= 130 ? `${n}岁` : null;
}

const DIGITS: Record<string, number> = { 零: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

/** 二十五 → 25, 十八 → 18, 一百零二 → 102; null for anything else. */
export function chineseNumber(text: string): number | null {
  let total = 0;
  let digit = 0;
  let seen = false;
  for (const ch of text) {
    if (ch in DIGITS) {
      digit = DIGITS[ch];
      seen = true;
    } else if (ch === "十" || ch === "百") {
      const unit = ch === "十" ? 10 : 100;
      total += (seen ? digit : 1) * unit;
      digit = 0;
      seen = false;
    } else return null;
  }
  return total + digit;
}

// Trailing particles and what follows the object: a duration, a reason, a companion.
const PARTICLES = /[了啊呀呢吧哦啦哈嘛的~～]+$/;
const TAIL =
  /(?:已经|都|快|差不多|大概|有)?(?:\d+|[一二三四五六七八九十几两多半]+)(?:多)?(?:年|个月|月|天|周)(?:了)?.*$|(?:的时候|因为|所以|但是|不过|而且|可是|虽然|和我|跟我|附近的).*$/;

function clean(text: string): string {
  return text.replace(TAIL, "").replace(PARTICLES, "").trim();
}

function ok(text: string, maxRunes: number): boolean {
  const n = [...text].length;
  return n >= 2 && n <= maxRunes && !ZH_PRONOUNS.has(text) && !/^[了过着的得地不没这那哪一个]/.test(text);
}

function nameObject(raw: string, bareIs: boolean): string | null {
  const t = clean(raw);
  if (/^[A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*){0,2}$/.test(t)) return bareIs ? null : t;
  if (!/^[\u3400-\u9fff]{2,4}$/.test(t) || !ok(t, 4)) return null;
  if (!bareIs) return t;
  // "我是X" is a name only when X looks like one: a common surname or 小/阿/老 and 1–2 more characters.
  const surname = ZH_SURNAMES.has(t.slice(0, 2)) ? t.slice(0, 2) : t[0];
  return ZH_SURNAMES.has(surname) && t.length <= 3 && !ZH_NOT_NAMES.has(t) ? t : null;
}

function placeObject(raw: string): string | null {
  const t = clean(raw);
  // 我住院了 is not a place; 我住这儿 is no place to remember.
  if (/^(?:院|校|宿|店)/.test(t) && t.length <= 2) return null;
  return ok(t, 20) ? t : null;
}

function isJob(t: string): boolean {
  if (!ok(t, 10) || ZH_NOT_JOBS.has(t) || /[的得地]/.test(t)) return false;
  return ZH_JOBS.has(t) || ZH_JOB_SUFFIXES.some((s) => t.endsWith(s)) || [...ZH_JOBS].some((j) => t.endsWith(j));
}

function orgObject(raw: string): string | null {
  const t = clean(raw).replace(/^(?:一家|一个|一所|一间)/, "");
  return ok(t, 20) && !/^(?:家|家里|这里|那里|外地|外面|附近)$/.test(t) ? t : null;
}

/** 我喜欢画画和陶艺 → both; 我爱你 → none. */
function thingObjects(raw: string): string[] {
  const core = clean(raw.replace(/^(?:上了|的是|的)/, ""));
  const out: string[] = [];
  for (const part of core.split(/和|、|还有|以及|跟|与|或者|或/)) {
    const t = part.replace(PARTICLES, "").trim();
    if (ok(t, 16)) out.push(t);
    if (out.length === 3) break;
  }
  return out;
}
