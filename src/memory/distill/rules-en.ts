/**
 * English rules: "my name is X", "I live in X", "I like X", "I'm N years old", "I work as X" and their close
 * variants. Each rule matches a whole clause from its start (after fillers such as "well," or "actually"),
 * and each kind of object has its own check, because "I live in a small flat", "I like to think that …" or
 * "I'm a big fan" must not become facts.
 */
import { EN_DETERMINERS, EN_JOBS, EN_NOT_NAME_WORDS, EN_PRONOUN_OBJECTS } from "./lexicon.js";
import { REL, type Relation, type RuleHit } from "./triple.js";

const FILLERS =
  /^(?:(?:well|oh|ok|okay|yeah|yes|yep|so|and|but|also|actually|anyway|btw|by the way|hi|hey|hello|um|uh|haha|lol|honestly|basically|now|currently|right now|these days|nowadays|plus|fun fact)\b[\s,!:-]*)+/i;
const ADV = String.raw`(?:(?:really|also|just|actually|still|currently|now|truly|absolutely|totally|do|definitely|kinda|kind of|sort of|genuinely|especially|particularly|very much|so|both|even|already|recently|finally)\s+)*`;
const IM = `(?:i'm|i am|im)`;

type Check = "name" | "place" | "thing" | "job" | "org" | "workIn" | "field";

interface Rule {
  re: RegExp;
  relation: Relation;
  check: Check;
}

const rule = (src: string, relation: Relation, check: Check): Rule => ({
  re: new RegExp(`^${src}\\s+(.+)$`, "i"),
  relation,
  check,
});

// Order matters: a dislike is tested before a like, a job before a workplace.
const RULES: Rule[] = [
  rule(`my name(?:'s| is)`, REL.name, "name"),
  rule(`${IM} (?:called|named)`, REL.name, "name"),
  rule(`(?:you can |just |please )?call me`, REL.name, "name"),
  rule(`(?:people|everyone|my friends) call me`, REL.name, "name"),
  rule(`i go by`, REL.name, "name"),
  rule(`i ${ADV}(?:live|reside|stay) in`, REL.residence, "place"),
  rule(`i(?:'ve| have) ${ADV}(?:lived|resided|been living|been staying) in`, REL.residence, "place"),
  rule(`i(?:'ve| have)? ${ADV}(?:moved|relocated) (?:back )?to`, REL.residence, "place"),
  rule(`${IM} ${ADV}(?:based|located|living|staying) in`, REL.residence, "place"),
  rule(`my (?:home|house|place) is in`, REL.residence, "place"),
  rule(`${IM} ${ADV}(?:originally )?from`, REL.origin, "place"),
  rule(`i ${ADV}(?:originally )?come from`, REL.origin, "place"),
  rule(`i was (?:born|raised) in`, REL.origin, "place"),
  rule(`i grew up in`, REL.origin, "place"),
  rule(`i ${ADV}(?:don't|do not|dont|really don't) ${ADV}(?:like|love|enjoy)`, REL.dislikes, "thing"),
  rule(`i ${ADV}(?:hate|dislike|detest|can't stand|cannot stand)`, REL.dislikes, "thing"),
  rule(`${IM} not (?:a (?:big )?fan of|into|fond of)`, REL.dislikes, "thing"),
  rule(`i ${ADV}(?:like|love|enjoy|adore|prefer)`, REL.likes, "thing"),
  rule(
    `${IM} ${ADV}(?:into|a (?:big |huge )?fan of|fond of|passionate about|obsessed with|crazy about)`,
    REL.likes,
    "thing",
  ),
  rule(`my favou?rite (?:[a-z]+ ){0,2}(?:is|are)`, REL.likes, "thing"),
  rule(`my hobb(?:y is|ies are|ies include)`, REL.likes, "thing"),
  rule(`(?:i ${ADV}work|${IM} ${ADV}working) as(?: an?| the)?`, REL.job, "field"),
  rule(`${IM} ${ADV}employed as(?: an?)?`, REL.job, "field"),
  rule(`my (?:job|occupation|profession) is(?: being)?(?: an?)?`, REL.job, "field"),
  rule(`${IM} ${ADV}(?:an?|the)`, REL.job, "job"),
  rule(`(?:i ${ADV}work|${IM} ${ADV}working) (?:at|for)`, REL.workplace, "org"),
  rule(`(?:i ${ADV}work|${IM} ${ADV}working) in`, REL.workplace, "workIn"),
];

const GREETING_NAME =
  /^\s*(?:[Hh]i|[Hh]ello|[Hh]ey)(?: there| everyone| all| guys)?[\s,!.-]+(?:I'm|I am|[Tt]his is|[Ii]t's)\s+([A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)\s*(?:[,.!;]|$)/;

/** "Hi, I'm Tom": a name said in a greeting (a bare "I'm Tom" elsewhere is too often something else). */
export function greetingName(text: string): RuleHit | null {
  const m = GREETING_NAME.exec(text);
  return m ? { relation: REL.name, object: m[1] } : null;
}

/** The facts of one English clause. */
export function matchEnglish(raw: string): RuleHit[] {
  const clause = raw.replace(FILLERS, "");
  const age = matchAge(clause);
  if (age) return [age];
  for (const r of RULES) {
    const m = r.re.exec(clause);
    if (!m) continue;
    const hits = objects(m[1], r);
    if (hits.length > 0) return hits;
  }
  return [];
}

const AGE_PATTERNS = [
  new RegExp(String.raw`^${IM} (\d{1,3})(?:\s*(?:years?|yrs?)(?:[\s-]*old)?\b.*|\s*y/?o\b.*)?$`, "i"),
  /^i (?:just |recently )?turned (\d{1,3})\b/i,
  /^my age is (\d{1,3})\b/i,
];

function matchAge(clause: string): RuleHit | null {
  for (const re of AGE_PATTERNS) {
    const m = re.exec(clause);
    if (!m) continue;
    const n = Number(m[1]);
    return n >= 1 && n <= 130 ? { relation: REL.age, object: `${n}岁` } : null;
  }
  return null;
}

// Where an object ends: a following clause, a time, a companion or a reason.
const OBJECT_END =
  /\s+(?:with|for|since|because|where|which|who|when|while|near|now|right now|these days|at the moment|and|but|so|though|although|last|this|these|after|before|until|as well|too|a lot|lately|(?:in|on|at|by) (?:\d+|the (?:moment|weekend|morning|evening))|(?:\d+|a|an|two|three|four|five|few|many|several|some) (?:years?|months?|weeks?|days?|hours?))\b.*$/i;
const THING_END =
  /\s+(?:because|since|when|while|but|so|though|although|as well|too|a lot|very much|so much|the most|more than|better than|lately|these days|right now|now|with (?:my|a|the)|at (?:the|my))\b.*$/i;

function objects(rest: string, r: Rule): RuleHit[] {
  const hit = (object: string | null): RuleHit[] => (object ? [{ relation: r.relation, object }] : []);
  switch (r.check) {
    case "name":
      return hit(nameObject(rest));
    case "place":
      return hit(placeObject(rest.replace(OBJECT_END, "")));
    case "org":
    case "workIn":
      return workObject(rest.replace(OBJECT_END, ""), r.check === "workIn");
    case "job":
      return hit(jobObject(rest.replace(OBJECT_END, "").replace(/\s+(?:at|in|of|on)\b.*$/i, "")));
    case "field":
      return hit(words(rest.replace(OBJECT_END, "").replace(/\s+(?:at|in|of|on)\b.*$/i, ""), 5));
    case "thing":
      return thingObjects(rest).map((object) => ({ relation: r.relation, object }));
  }
}

function words(text: string, max: number): string | null {
  const t = text.replace(/^the\s+/i, "").trim();
  const ws = t.split(/\s+/);
  if (t === "" || ws.length > max) return null;
  if (EN_DETERMINERS.has(ws[0].toLowerCase()) || EN_PRONOUN_OBJECTS.has(ws[0].toLowerCase())) return null;
  return t;
}

function nameObject(rest: string): string | null {
  const t = rest.trim();
  const ws = t.split(/\s+/);
  if (ws.length > 3 || ws.some((w) => EN_NOT_NAME_WORDS.has(w.toLowerCase()) || !/^[\p{L}][\p{L}'.-]*$/u.test(w))) {
    return null;
  }
  return t;
}

function placeObject(rest: string): string | null {
  const t = words(rest, 5);
  return t && !/^\d+$/.test(t) ? t : null;
}

/** "work at Google" is an employer; "work in marketing" (lower case) is a field, so a job instead. */
function workObject(rest: string, isIn: boolean): RuleHit[] {
  const t = words(rest, 5);
  if (!t) return [];
  if (/^[A-Z\u3400-\u9fff]/.test(t)) return [{ relation: REL.workplace, object: t }];
  return isIn && !/^(?:home|bed|bulk|private|secret|shifts?|silence|teams?|person)$/i.test(t)
    ? [{ relation: REL.job, object: t }]
    : [];
}

/** "I'm a (retired) teacher": a job only when its last word is a job noun. */
function jobObject(rest: string): string | null {
  const t = words(rest, 4);
  if (!t) return null;
  const last = t.split(/\s+/).at(-1)!.toLowerCase();
  return EN_JOBS.has(last) || EN_JOBS.has(last.replace(/s$/, "")) ? t : null;
}

const NOT_A_LIKE = /^to (?:think|say|believe|imagine|know|see|hear|point out|mention|ask|keep|pretend|assume|hope)\b/i;

/** "I like hiking and pottery" → both; "I like to think that …", "I love it when …" → none. */
function thingObjects(rest: string): string[] {
  if (NOT_A_LIKE.test(rest) || /^the (?:way|idea|fact|thought|feeling)\b/i.test(rest)) return [];
  const core = rest.replace(THING_END, "").replace(/^to\s+/i, "");
  const out: string[] = [];
  for (const part of core.split(/\s*,\s*|\s+(?:and|or|&)\s+/i)) {
    const t = words(part, 5);
    if (t) out.push(t);
    if (out.length === 3) break;
  }
  return out;
}
