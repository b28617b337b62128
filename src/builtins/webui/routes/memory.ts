/**
 * The memory browser's routes: graph recall, commit and forget (/api/v1/memory), the graph page by page,
 * what would be injected for a query (memory/context), search over every layer, documents and the context
 * window's timeline, and one fact corrected or deleted by its id (memory/facts/:id). Reading here never
 * changes memory (documents are not consumed, unlike the model's doc_query); commit, the fact edits and
 * forget are the only writes, and forget only previews unless `confirm` is true. The dashboard asks the
 * user to confirm an edit or a delete before it sends one.
 */
import type { MemoryKind } from "@homeagent/sdk";
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { MAX_QUERY_CHARS } from "../limits.js";
import { intQuery, invalid, optionalBoolean, optionalString, requiredText, textQuery } from "../params.js";
import { sdkCall } from "../sdk-errors.js";

const KINDS: readonly MemoryKind[] = ["context", "turn", "doc", "entity"];
const MAX_DEPTH = 5;
const MAX_OFFSET = 1_000_000_000;
const MAX_SENTENCE_CHARS = 4096;
const FACT_FIELDS = ["subject", "relation", "object"] as const;
/** Memory refuses names past 50 characters with its own reason; longer input is not worth reading. */
const MAX_FACT_FIELD_CHARS = 512;

export const memoryRoutes: RouteGroup = (app, deps) => {
  const { sdk } = deps;

  app.get("/api/v1/memory", async (c) => {
    const q = textQuery(c, "q", MAX_QUERY_CHARS);
    const depth = intQuery(c, "depth", 1, MAX_DEPTH, 2);
    return c.json(await sdkCall(() => sdk.memory.recall(q, { depth })));
  });

  app.post("/api/v1/memory", async (c) => {
    const body = await readJson(c, deps.limits.maxJsonBytes);
    if (!Array.isArray(body.triples)) throw invalid("triples", "must be an array of {subject, relation, object}");
    const sentence = optionalString(body, "sentence", MAX_SENTENCE_CHARS);
    return c.json(await sdkCall(() => sdk.memory.commit(body.triples as never, sentence ? { sentence } : {})));
  });

  app.delete("/api/v1/memory", async (c) => {
    const body = await readJson(c, deps.limits.maxJsonBytes);
    const query = requiredText(body, "query", MAX_QUERY_CHARS, "name what to forget in a few words");
    const confirm = optionalBoolean(body, "confirm") ?? false;
    const knowledge = optionalBoolean(body, "knowledge") ?? false;
    return c.json(await sdkCall(() => sdk.memory.forget(query, { confirm, knowledge })));
  });

  app.put("/api/v1/memory/facts/:id", async (c) => {
    const id = factId(c.req.param("id"));
    const body = await readJson(c, deps.limits.maxJsonBytes);
    const change: Record<string, string> = {};
    for (const field of FACT_FIELDS) {
      const value = optionalString(body, field, MAX_FACT_FIELD_CHARS);
      if (value !== undefined) change[field] = value;
    }
    return c.json(await sdkCall(() => sdk.memory.editFact(id, change)));
  });

  app.delete("/api/v1/memory/facts/:id", async (c) => {
    const id = factId(c.req.param("id"));
    return c.json(await sdkCall(() => sdk.memory.deleteFact(id)));
  });

  app.get("/api/v1/memory/graph", async (c) => {
    const offset = intQuery(c, "offset", 0, MAX_OFFSET, 0);
    const limit = intQuery(c, "limit", 1, 1000, 200);
    return c.json(await sdkCall(() => sdk.memory.graph({ offset, limit })));
  });

  app.get("/api/v1/memory/context", async (c) => {
    const q = textQuery(c, "q", MAX_QUERY_CHARS);
    return c.json(await sdkCall(() => sdk.kernel.preview(q)));
  });

  app.get("/api/v1/memory/search", async (c) => {
    const q = textQuery(c, "q", MAX_QUERY_CHARS);
    const kinds = kindsQuery(c.req.query("kinds"));
    const limit = intQuery(c, "limit", 1, 100, 10);
    return c.json({ items: await sdkCall(() => sdk.memory.search(q, { kinds, limit })) });
  });

  app.get("/api/v1/memory/docs", async (c) => {
    const q = c.req.query("q");
    const offset = intQuery(c, "offset", 0, MAX_OFFSET, 0);
    const limit = intQuery(c, "limit", 1, 200, 50);
    if (q === undefined || q.trim() === "") return c.json(await sdkCall(() => sdk.docMemory.list({ offset, limit })));
    const query = textQuery(c, "q", MAX_QUERY_CHARS);
    const items = await sdkCall(() => sdk.docMemory.query(query, limit));
    return c.json({ items, total: items.length });
  });

  app.get("/api/v1/memory/docs/:id", async (c) => {
    const id = c.req.param("id");
    if (id.length > 256) throw invalid("id", "must be at most 256 characters");
    const doc = await sdkCall(() => sdk.docMemory.get(id));
    if (!doc) throw new ApiError(404, "not_found", `there is no memory document ${id}`);
    return c.json(doc);
  });

  app.get("/api/v1/memory/timeline", async (c) => c.json({ events: await sdkCall(() => sdk.memory.timeline()) }));

  return undefined;
};

/** A fact's id as the graph lists it: a whole number ≥ 1 (digits only, so "1e3" or "0x10" are refused). */
function factId(raw: string): number {
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw invalid("id", "must be a fact's id as the graph lists it (a whole number ≥ 1)");
  return id;
}

function kindsQuery(raw: string | undefined): MemoryKind[] | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const kinds = raw.split(",").map((k) => k.trim());
  const bad = kinds.find((k) => !(KINDS as readonly string[]).includes(k));
  if (bad !== undefined) throw invalid("kinds", `must be a comma list of ${KINDS.join(", ")} (got "${bad}")`);
  return kinds as MemoryKind[];
}
