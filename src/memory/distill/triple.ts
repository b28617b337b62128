/**
 * The vocabulary the distillation rules write into the graph: one default subject and one set of relation
 * names for both languages, so a fact told in Chinese and the same fact told in English meet on one edge.
 * Names follow the original pipeline (姓名, 居住地, 喜好, 年龄, 职业) plus 来自, 不喜欢 and 工作单位.
 */

/** The graph's own shape: what the rules produce is committed as it is. */
export type { Triple } from "../graph/core.js";

/** Who "I" is when the line names no speaker: the word the original graph and its prompts use. */
export const DEFAULT_SUBJECT = "用户";

export const REL = {
  name: "姓名",
  residence: "居住地",
  origin: "来自",
  likes: "喜好",
  dislikes: "不喜欢",
  age: "年龄",
  job: "职业",
  workplace: "工作单位",
} as const;
export type Relation = (typeof REL)[keyof typeof REL];

/** The type of a rule's object, by relation (others stay Concept). */
export const OBJECT_TYPES: Partial<Record<Relation, string>> = {
  [REL.name]: "Name",
  [REL.residence]: "Place",
  [REL.origin]: "Place",
  [REL.workplace]: "Organization",
  [REL.job]: "Occupation",
};

/** One fact a rule found in a clause, before the subject is attached. */
export interface RuleHit {
  relation: Relation;
  object: string;
}
