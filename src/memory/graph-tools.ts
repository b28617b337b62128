/**
 * The graph and social tools the model calls (inventory §3.6), as ToolDef + handler pairs for the tool
 * registry. Arguments are checked here with messages that tell the model how to call again, and every
 * result says what changed, with counts, so "forget X" can be verified from the reply alone.
 */
import type { ToolContext, ToolDef, ToolHandler } from "@homeagent/sdk";
import { tokenize } from "../embedding/text.js";
import type { GraphDB, RecallResult, Triple } from "./graph/graph.js";
import { type Indexer, queryKeywords } from "./graph/indexer.js";
import { GraphError, MAX_DEPTH } from "./graph/rules.js";
import type { SocialStore } from "./graph/social.js";

export interface GraphTool {
  def: ToolDef;
  handler: ToolHandler;
}

type Counts = Record<string, number>;

export interface GraphToolDeps {
  graph: GraphDB;
  social: SocialStore;
  indexer: Indexer;
  /**
   * Forgets, in the other layers (raw conversation log, documents …), the text that mentions all of
   * `terms`; called after a hard memory_purge or memory_delete_entity. Returns counts by layer.
   */
  forget?: (terms: string[]) => Counts | Promise<Counts>;
  /** Rewrites the old fact's words in the other layers after memory_edit. Returns counts by layer. */
  rewrite?: (old: Triple, next: Triple) => Counts | Promise<Counts>;
}

export const GRAPH_TOOL_NAMES = [
  "memory_recall",
  "memory_commit",
  "memory_merge",
  "memory_purge",
  "memory_edit",
  "memory_delete_entity",
  "memory_introspect",
  "person_query",
  "person_set_trait",
  "person_relate",
  "person_network",
];

const MAX_RESULT_FACTS = 100;
const str = (description: string) => ({ type: "string", description });
const depthParam = (description: string) => ({
  type: "integer",
  minimum: 0,
  maximum: MAX_DEPTH,
  default: 2,
  description,
});

export function graphTools(deps: GraphToolDeps): GraphTool[] {
  const { graph, social } = deps;
  return [
    {
      def: {
        name: "memory_recall",
        description:
          "Look up long-term memory (the knowledge graph): entities whose names contain any of the keywords, and " +
          "the facts around them up to `depth` hops. Without keywords: the most mentioned entities and the newest facts.",
        parameters: {
          type: "object",
          properties: {
            query_intent: str('Comma-separated keywords or names, e.g. "Alice, 北京, coffee".'),
            depth: depthParam("Hops to follow from the matched entities (0–5)."),
          },
        },
      },
      handler: (args, ctx) => recallTool(deps, args, ctx),
    },
    {
      def: {
        name: "memory_commit",
        description:
          "Store facts in long-term memory as triples. Names must be 2–50 characters with a letter or CJK " +
          'character (use "用户"/"the user" rather than "我"/"I"). Invalid triples are skipped with the reason.',
        parameters: {
          type: "object",
          properties: {
            triples: {
              type: "array",
              description: "Facts to store.",
              items: {
                type: "object",
                properties: { subject: { type: "string" }, relation: { type: "string" }, object: { type: "string" } },
                required: ["subject", "relation", "object"],
              },
            },
            sentence_text: str("The sentence the facts come from (kept as their source)."),
          },
          required: ["triples"],
        },
      },
      handler: (args, ctx) => {
        if (!Array.isArray(args.triples) || args.triples.length === 0) {
          throw bad('"triples" must be a non-empty array of {subject, relation, object}');
        }
        // The model commits on purpose, in a turn with the user: a fact the user had removed is stored again
        // (and the summary says so, so the model can tell the user). Only automatic distillation skips it.
        const r = graph.commit(args.triples as Triple[], {
          sessionId: ctx.source,
          sentence: optional(args, "sentence_text"),
          explicit: true,
        });
        const lifted = r.lifted > 0 ? `, ${r.lifted} the user had removed stored again` : "";
        return {
          ...r,
          summary: `${r.entities} new entities, ${r.relations} new facts, ${r.refreshed} refreshed, ${r.skipped.length} skipped${lifted}`,
        };
      },
    },
    {
      def: {
        name: "memory_merge",
        description:
          "Merge two entities that are the same thing: the source's facts and traits move to the target, the source is deleted.",
        parameters: {
          type: "object",
          properties: { source: str("Entity to fold away."), target: str("Entity to keep.") },
          required: ["source", "target"],
        },
      },
      handler: (args) => {
        const source = required(args, "source");
        const target = required(args, "target");
        const r = graph.merge(source, target);
        return {
          ...r,
          summary: `merged "${source}" into "${target}": ${r.relations} facts redirected, ${r.dropped} duplicates dropped`,
        };
      },
    },
    {
      def: {
        name: "memory_purge",
        description:
          "Remove facts matching all given filters (at least one). hard (default) deletes them; with only " +
          "subject/target filters (no relation_type) it forgets those names everywhere: the conversation, documents " +
          "and raw log mentioning them. soft only marks facts deleted (reversible).",
        parameters: {
          type: "object",
          properties: {
            subject_contains: str("Subject name contains this."),
            relation_type: str('Relation, exactly (e.g. "likes"; "trait:age" for a person trait).'),
            target_contains: str("Object name contains this."),
            mode: { type: "string", enum: ["soft", "hard"], default: "hard", description: "soft or hard." },
          },
        },
      },
      handler: async (args) => {
        const subject = optional(args, "subject_contains");
        const target = optional(args, "target_contains");
        const mode = optional(args, "mode") ?? "hard";
        if (mode !== "soft" && mode !== "hard") throw bad('"mode" must be "soft" or "hard"');
        const relationType = optional(args, "relation_type");
        const r = graph.purge({ subjectContains: subject, relationType, targetContains: target, mode });
        // Only a purge of the names themselves forgets them everywhere; one narrowed to a relation removes
        // those facts and nothing the user said about anything else.
        const terms = [subject, target].filter((t): t is string => !!t);
        const wholeNames = mode === "hard" && terms.length > 0 && !relationType;
        const elsewhere = wholeNames ? await deps.forget?.(terms) : undefined;
        return {
          ...r,
          elsewhere: elsewhere ?? {},
          summary: `${mode === "hard" ? "deleted" : "marked deleted"} ${r.relations} facts, ${r.traits} traits; ${r.entities} entities ${mode === "hard" ? "removed" : "hidden"}, ${r.sentences} sentences removed${countsText(elsewhere)}`,
        };
      },
    },
    {
      def: {
        name: "memory_edit",
        description:
          "Correct a stored fact: the old fact (exact names, as memory_recall shows them) is deleted and the edited one stored. " +
          "Give the new_* fields that change.",
        parameters: {
          type: "object",
          properties: {
            old_subject: str("Subject of the fact to correct."),
            old_relation: str("Its relation."),
            old_object: str("Its object."),
            new_subject: str("Corrected subject."),
            new_relation: str("Corrected relation."),
            new_object: str("Corrected object."),
          },
          required: ["old_subject", "old_relation", "old_object"],
        },
      },
      handler: async (args, ctx) => {
        const old = {
          subject: required(args, "old_subject"),
          relation: required(args, "old_relation"),
          object: required(args, "old_object"),
        };
        const change = {
          subject: optional(args, "new_subject"),
          relation: optional(args, "new_relation"),
          object: optional(args, "new_object"),
        };
        if (!change.subject && !change.relation && !change.object) {
          throw bad("give at least one of new_subject, new_relation, new_object");
        }
        const next = {
          subject: change.subject ?? old.subject,
          relation: change.relation ?? old.relation,
          object: change.object ?? old.object,
        };
        const r = graph.edit(old, next, { sessionId: ctx.source });
        const elsewhere = await deps.rewrite?.(old, next);
        return {
          ...r,
          fact: next,
          elsewhere: elsewhere ?? {},
          summary: `replaced ${r.removed} copies of "${old.subject} ${old.relation} ${old.object}" by "${next.subject} ${next.relation} ${next.object}"${countsText(elsewhere)}`,
        };
      },
    },
    {
      def: {
        name: "memory_delete_entity",
        description:
          "Forget an entity completely: it, every fact and trait about it, the source sentences naming it and the raw conversation lines mentioning it.",
        parameters: { type: "object", properties: { name: str("Exact entity name.") }, required: ["name"] },
      },
      handler: async (args) => {
        const name = required(args, "name");
        const r = graph.deleteEntity(name);
        const elsewhere = await deps.forget?.([name]);
        return {
          ...r,
          elsewhere: elsewhere ?? {},
          summary: `deleted "${name}": ${r.entities} entities, ${r.relations} facts, ${r.traits} traits, ${r.sentences} sentences${countsText(elsewhere)}`,
        };
      },
    },
    {
      def: {
        name: "memory_introspect",
        description: "Size of long-term memory (entities, facts, sentences, traits) and its most mentioned entities.",
        parameters: { type: "object", properties: {} },
      },
      handler: () => graph.introspect(),
    },
    {
      def: {
        name: "person_query",
        description: "What is known about a person: traits and relations.",
        parameters: { type: "object", properties: { name: str("The person's name.") }, required: ["name"] },
      },
      handler: (args, ctx) => {
        const name = required(args, "name");
        const person = social.person(name);
        if (!person)
          return { found: false, message: `no one named "${name}" in memory; memory_recall finds similar names` };
        deps.indexer.markRecalled(ctx.requestId, [person.name]);
        return { found: true, ...person };
      },
    },
    {
      def: {
        name: "person_set_trait",
        description: "Set a person's trait (age, birthday, job …), replacing its earlier value.",
        parameters: {
          type: "object",
          properties: { name: str("The person's name."), trait: str("Trait name."), value: str("Its value.") },
          required: ["name", "trait", "value"],
        },
      },
      handler: (args) => {
        const name = required(args, "name");
        const trait = required(args, "trait");
        const value = required(args, "value");
        const { previous } = social.setTrait(name, trait, value);
        return {
          name,
          trait,
          value,
          previous,
          summary:
            previous === null ? `set ${name}'s ${trait}` : `replaced ${name}'s ${trait} ("${previous}" → "${value}")`,
        };
      },
    },
    {
      def: {
        name: "person_relate",
        description: 'Record a relation between two people, both ways (e.g. "Alice", "friend", "Bob").',
        parameters: {
          type: "object",
          properties: { person_a: str("First person."), relation: str("Relation."), person_b: str("Second person.") },
          required: ["person_a", "relation", "person_b"],
        },
      },
      handler: (args, ctx) => {
        const a = required(args, "person_a");
        const relation = required(args, "relation");
        const b = required(args, "person_b");
        const r = social.relate(a, relation, b, { sessionId: ctx.source });
        return {
          ...r,
          summary: `${a} ${relation} ${b} (both ways): ${r.relations} new facts, ${r.refreshed} refreshed`,
        };
      },
    },
    {
      def: {
        name: "person_network",
        description: "The people connected to a person, up to `depth` hops, with the relations between them.",
        parameters: {
          type: "object",
          properties: { name: str("The person's name."), depth: { ...depthParam("Hops (1–5)."), minimum: 1 } },
          required: ["name"],
        },
      },
      handler: (args) => {
        const name = required(args, "name");
        const net = social.network(name, integer(args, "depth", 2, 1, MAX_DEPTH));
        return net ?? { found: false, message: `no one named "${name}" in memory` };
      },
    },
  ];
}

/**
 * Graph facts for what someone asks about: comma-separated names or keywords as given, else (a sentence)
 * its own most specific words. Shared by memory_recall and `/memory query`, so both read a query alike.
 */
export function recallIntent(graph: GraphDB, intent: string, depth: number): RecallResult {
  const terms = intent
    .split(/[,，、;；\n]/)
    .map((t) => t.trim())
    .filter(Boolean);
  const found = graph.recall(terms, [], depth);
  if (found.entities.length > 0 || terms.length === 0) return found;
  const words = queryKeywords(tokenize(intent));
  return words.length > 0 ? graph.recall(words, [], depth) : found;
}

async function recallTool(deps: GraphToolDeps, args: Record<string, unknown>, ctx: ToolContext) {
  const intent = optional(args, "query_intent") ?? "";
  const depth = integer(args, "depth", 2, 0, MAX_DEPTH);
  const found = recallIntent(deps.graph, intent, depth);
  deps.indexer.markRecalled(
    ctx.requestId,
    found.entities.map((e) => e.name),
  );
  const facts = found.relations.slice(0, MAX_RESULT_FACTS);
  return {
    entities: found.entities.map((e) => ({ name: e.name, type: e.type, mentions: e.mentionCount })),
    facts: facts.map((r) => ({
      subject: r.subject,
      relation: r.relation,
      object: r.object,
      date: r.dateBucket,
      ...(r.sentence ? { sentence: r.sentence } : {}),
    })),
    traits: found.traits.map((t) => ({ person: t.entity, trait: t.trait, value: t.value })),
    truncated: found.truncated || found.relations.length > facts.length,
    summary: `${found.entities.length} entities, ${facts.length} facts, ${found.traits.length} traits`,
  };
}

function bad(message: string): GraphError {
  return new GraphError({ code: "graph_bad_argument", message });
}

function required(args: Record<string, unknown>, key: string): string {
  const value = optional(args, key);
  if (!value) throw bad(`"${key}" is required and must be a non-empty string`);
  return value;
}

function optional(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw bad(`"${key}" must be a string`);
  return value.trim() || undefined;
}

function integer(args: Record<string, unknown>, key: string, fallback: number, min: number, max: number): number {
  const value = args[key];
  if (value === undefined || value === null) return fallback;
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw bad(`"${key}" must be an integer from ${min} to ${max}`);
  }
  return n;
}

function countsText(counts: Counts | undefined): string {
  const parts = Object.entries(counts ?? {}).map(([layer, n]) => `${n} ${layer}`);
  return parts.length > 0 ? `; elsewhere: ${parts.join(", ")}` : "";
}
