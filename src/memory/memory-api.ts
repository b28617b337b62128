/**
 * The plugins' view of memory (`sdk.memory`, `sdk.docMemory`, `sdk.social`): the SDK's camelCase shapes
 * built from the layers' own types. Reading documents here never consumes them — only the model's
 * doc_query moves documents back into the context.
 */
import type { DocMemoryAPI, MemoryAPI, MemoryDoc, MemoryItem, MemoryKind, SocialAPI } from "@homeagent/sdk";
import type { SearchHit, StoredItem } from "../retrieval/search.js";
import { HomeAgentError } from "../util/errors.js";
import { LOOPS, type LoopName } from "./distill/heartbeat.js";
import type { Doc } from "./documents/schema.js";
import { entityOut, relationOut } from "./graph/api-shapes.js";
import { commitFacts } from "./graph/fact-commit.js";
import { deleteFactById, editFactById } from "./graph/fact-edit.js";
import { graphPage } from "./graph/page.js";
import { recallIntent } from "./graph-tools.js";
import { conversationHistory } from "./history.js";
import { MemoryChecker } from "./integrity-check.js";
import type { MemorySystem } from "./system.js";

const KINDS: readonly MemoryKind[] = ["context", "turn", "doc", "entity"];
const MAX_LIMIT = 200;

export interface MemoryApis {
  memory: MemoryAPI;
  docMemory: DocMemoryAPI;
  social: SocialAPI;
}

export function memoryApis(m: MemorySystem): MemoryApis {
  const checker = new MemoryChecker(m.db);
  const memory: MemoryAPI = {
    recall: async (query, opts) => {
      const r = recallIntent(m.graph, query, opts?.depth ?? 2);
      return { entities: r.entities.map(entityOut), relations: r.relations.map(relationOut) };
    },
    search: async (query, opts = {}) => {
      const hits = await m.index.search(query, {
        k: limit(opts.limit, 10),
        filter: { kind: kinds(opts.kinds), since: opts.since, until: opts.until },
      });
      return hits.map(toItem);
    },
    list: async (opts) => {
      const kind = kinds([opts.kind])?.[0];
      const filter = { kind, since: opts.since, until: opts.until };
      const items = m.index.list({ ...filter, offset: opts.offset ?? 0, limit: limit(opts.limit, 50), order: "desc" });
      return { items: items.map(toItem), total: m.index.count(filter) };
    },
    timeline: async () => (await m.context.window()).map(({ toolResults: _, cleanInput: __, ...e }) => ({ ...e })),
    stats: async () => {
      const g = m.graph.introspect();
      const indexed = Object.fromEntries(KINDS.map((k) => [k, m.index.count({ kind: k })])) as Record<
        MemoryKind,
        number
      >;
      return {
        context: { events: m.context.size(), maxEvents: m.maxContextSize() },
        documents: m.docs.count(),
        entities: g.entities,
        relations: g.relations,
        sentences: g.sentences,
        indexed,
        hot: g.hot,
        scrub: m.scrubber.status(),
      };
    },
    check: (opts) => checker.check(opts),
    graph: async (opts) => graphPage(m.db, opts),
    history: async (opts) => conversationHistory(m.db, opts),
    // Writes from outside the job lane wait for a scrub in progress (Scrubber.idle says why).
    commit: async (triples, opts) => {
      await m.scrubber.idle();
      return commitFacts(m.graph, triples, opts);
    },
    editFact: async (id, change) => {
      await m.scrubber.idle();
      return editFactById(m.graph, id, change);
    },
    deleteFact: async (id) => {
      await m.scrubber.idle();
      return deleteFactById(m.graph, id);
    },
    runLoop: async (name) => {
      if (!LOOPS.includes(name as LoopName)) {
        throw new HomeAgentError({ code: "memory_bad_loop", message: `no loop "${name}": use ${LOOPS.join(", ")}` });
      }
      return { loop: name, summary: await m.runLoop(name as LoopName) };
    },
    forget: (query, opts) =>
      opts.confirm ? m.forgetting.forget(query, { knowledge: opts.knowledge === true }) : m.forgetting.preview(query),
  };
  const docMemory: DocMemoryAPI = {
    query: async (q, topK = 5) => (await m.docs.rank(q, topK)).map((r) => toDoc(m.docs.get(r.docId)!, r.score)),
    get: async (id) => {
      const d = m.docs.get(id);
      return d ? toDoc(d) : null;
    },
    list: async (opts) => ({
      items: m.docs.list({ offset: opts.offset ?? 0, limit: limit(opts.limit, 50) }).map((d) => toDoc(d)),
      total: m.docs.count(),
    }),
  };
  const social: SocialAPI = {
    person: async (name) => {
      const p = m.social.person(name);
      if (!p) return null;
      return {
        name: p.name,
        traits: p.traits,
        relations: p.relations.map((r) => ({ relation: r.relation, person: r.other })),
      };
    },
    network: async (name, depth = 2) => {
      const n = m.social.network(name, depth);
      return {
        name,
        depth,
        people: n?.people ?? [],
        relations: n?.relations ?? [],
      };
    },
  };
  return { memory, docMemory, social };
}

function kinds(asked: readonly string[] | undefined): string[] | undefined {
  if (!asked || asked.length === 0) return undefined;
  const bad = asked.filter((k) => !KINDS.includes(k as MemoryKind));
  if (bad.length > 0) {
    throw new HomeAgentError({
      code: "memory_bad_kind",
      message: `unknown memory kind "${bad[0]}": use ${KINDS.join(", ")}`,
    });
  }
  return [...asked];
}

function limit(asked: number | undefined, dflt: number): number {
  const n = asked ?? dflt;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new HomeAgentError({ code: "memory_bad_limit", message: `limit must be an integer from 1 to ${MAX_LIMIT}` });
  }
  return n;
}

function toItem(h: SearchHit | StoredItem): MemoryItem {
  return {
    id: h.id,
    kind: h.kind as MemoryKind,
    text: h.text,
    ts: h.ts,
    meta: h.meta,
    ...("score" in h ? { score: h.score } : {}),
  };
}

function toDoc(d: Doc, score?: number): MemoryDoc {
  return {
    id: d.id,
    summary: d.summary,
    content: d.content,
    tags: d.tags,
    entities: d.entities,
    source: d.source,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    accessCount: d.accessCount,
    tsStart: d.tsStart,
    tsEnd: d.tsEnd,
    ...(score !== undefined ? { score } : {}),
  };
}
