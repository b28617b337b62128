/**
 * Long-term memory as plugins see it (the web UI's memory browser, inspection tools). Three layers: the
 * context window (recent events), documents (archived conversations and committed notes, verbatim) and
 * the graph (entities and relations). Every time is unix milliseconds.
 */
import type { MemoryCheck } from "./memory-check.js";

/** What the search index holds: context events, archived turns, documents, graph entities. */
export type MemoryKind = "context" | "turn" | "doc" | "entity";

export interface MemoryEntity {
  name: string;
  /** "Concept" unless known better (Person, Place, …). */
  type: string;
  mentions: number;
  createdAt: number;
  updatedAt: number;
}

export interface MemoryRelation {
  /**
   * Names this fact for editFact / deleteFact. Never reused: once the fact is edited (the corrected one
   * gets a new id), deleted or forgotten, the old id is refused as not found.
   */
  id: number;
  subject: string;
  relation: string;
  object: string;
  confidence: number;
  /** "active", or how it left (e.g. "superseded"). */
  status: string;
  createdAt: number;
  updatedAt: number;
  /** The sentence the relation was distilled from, when known. */
  sentence?: string;
}

/** One entry of the search index. */
export interface MemoryItem {
  /** `ctx:<eventId>`, `turn:<turnId>`, `doc:<docId>`, `ent:<entityId>`. */
  id: string;
  kind: MemoryKind;
  text: string;
  ts: number;
  /** Relevance to the query (search only). */
  score?: number;
  meta: Record<string, unknown>;
}

/** One event of the context window. */
export interface MemoryEvent {
  id: number;
  ts: number;
  kind: "user" | "agent" | "cold_storage";
  source: string;
  channel: string;
  input: string;
  response: string;
  toolsUsed: string[];
  noMemory: boolean;
  /** Why the input got no reply. */
  unanswered?: string;
}

export interface MemoryStats {
  context: { events: number; maxEvents: number };
  documents: number;
  entities: number;
  relations: number;
  sentences: number;
  /** Items in the search index, by kind. */
  indexed: Record<MemoryKind, number>;
  /** The most mentioned entities. */
  hot: Array<{ name: string; mentions: number }>;
  /** The scrub of the database files after the last forget. */
  scrub: ScrubStatus;
}

/** The heartbeat loops of memory, each of which can be run on demand. */
export type MemoryLoop = "distill" | "archive" | "merge" | "review";

/** Counts per layer and index, for forget. */
export interface ForgetCounts {
  context: number;
  documents: number;
  entities: number;
  relations: number;
  sentences: number;
  /** Person traits whose name or value held the text. */
  traits: number;
  /** Entity types that held the text, set back to the default type (the entity stays). */
  types: number;
  /** Facts the user had removed, remembered (as keyed hashes) so distillation skips them. */
  rejections: number;
  /** Distillation's pending lines and merge notes. */
  distill: number;
  textLog: number;
  indexItems: number;
  /** Pre-upgrade copies of memory.db deleted: they held the forgotten text too. */
  backups: number;
  /** Lines of waiter's input history (`<data>/waiter_history`). */
  history: number;
  /** Messages kept for channels while nobody was connected (reminders, results). */
  inbox: number;
  /** Approvals asked, and "always" approvals remembered, whose question held the text. */
  approvals: number;
  /** Transcript entries (turns, messages) whose text held it: removed whole. */
  transcripts: number;
}

/** What one plugin's `onForget` handler matched (a preview) or removed, or why it could not. */
export interface PluginForgetReport {
  plugin: string;
  /** By kind of data, in the plugin's words (e.g. `{uploads: 1, events: 3}`). */
  counts: Record<string, number>;
  /** A few names or texts that matched, for the user to check. */
  samples: string[];
  /** The handler failed or did not answer in time: its data may still hold the text. */
  error?: string;
}

/** The knowledge base (the user's own notes): listed by forget, removed only when asked for. */
export interface KnowledgeForgetReport {
  /** Items whose path or text mentions the query. */
  matched: number;
  /** Up to 20 of their paths. */
  paths: string[];
  /** Items removed: 0 unless `knowledge: true` was given with `confirm: true`. */
  removed: number;
}

/**
 * The scrub that follows a confirmed forget: the databases are rewritten (VACUUM) so that the removed text
 * leaves their free pages too, and their write-ahead logs are truncated. It runs in the background.
 */
export interface ScrubStatus {
  /** "idle" before any forget; "failed" with `error` (the forget itself stands). */
  state: "idle" | "queued" | "running" | "done" | "failed";
  /** Databases of this run scrubbed so far, and in all. */
  done: number;
  total: number;
  /** The database being scrubbed now (its file name). */
  current?: string;
  /** Unix ms. */
  startedAt?: number;
  finishedAt?: number;
  error?: string;
}

export interface ForgetReport {
  query: string;
  /** false: a preview, nothing was removed. */
  confirmed: boolean;
  matched: ForgetCounts;
  /** All zero in a preview. */
  removed: ForgetCounts;
  /** A few of the matching texts, so the user can check before confirming. */
  samples: string[];
  /** Data the running plugins keep for themselves (their `onForget` handlers). */
  plugins: PluginForgetReport[];
  knowledge: KnowledgeForgetReport;
  /** Confirmed forgets only: the scrub of the database files, as it stood when the forget answered. */
  scrub?: ScrubStatus;
}

/** What a plugin's `onForget` handler is asked. */
export interface ForgetRequest {
  /**
   * The plugin's data that mentions every one of them is meant, matched as `forgetMatcher(terms)` matches
   * (case-insensitive, NFKC, JSON-escaped forms too). They are the text the user wants gone: never log or
   * keep them.
   */
  terms: string[];
  /** false: only count what would go (the preview); true: remove it. */
  confirm: boolean;
}

/** What an `onForget` handler answers: counts by kind of data, and a few samples for the preview. */
export interface ForgetResult {
  counts: Record<string, number>;
  samples?: string[];
}

export type ForgetHandler = (request: ForgetRequest) => ForgetResult | Promise<ForgetResult>;

/** One page of the graph: entities as nodes, active relations among them (and to them) as edges. */
export interface MemoryGraphPage {
  /** Most mentioned first. */
  nodes: MemoryEntity[];
  /** Relations whose subject or object is on this page. */
  edges: MemoryRelation[];
  /** Entities in the whole graph. */
  total: number;
}

/** A fact to write into the graph, as the memory_commit tool takes it. */
export interface MemoryTriple {
  subject: string;
  relation: string;
  object: string;
  /** 0..1; default 0.9 (told by the user). */
  confidence?: number;
}

/** One exchange of a conversation, as memory holds it (the context window, then archived turns). */
export interface HistoryEntry {
  /** `ctx:<eventId>` while in the context window, `turn:<turnId>` once archived. */
  id: string;
  /** Unix milliseconds of the input. */
  ts: number;
  source: string;
  channel: string;
  input: string;
  /** "" while unanswered. */
  response: string;
  /** Why the input got no reply, when it got none. */
  unanswered?: string;
}

export interface MemoryAPI {
  /** Graph facts about the query's keywords, breadth-first to `depth` (default 2). */
  recall(query: string, opts?: { depth?: number }): Promise<{ entities: MemoryEntity[]; relations: MemoryRelation[] }>;
  /** Hybrid (keyword + vector) search of the index; `limit` default 10. */
  search(
    query: string,
    opts?: { kinds?: MemoryKind[]; limit?: number; since?: number; until?: number },
  ): Promise<MemoryItem[]>;
  /** One page of one kind, newest first. */
  list(opts: {
    kind: MemoryKind;
    offset?: number;
    limit?: number;
    since?: number;
    until?: number;
  }): Promise<{ items: MemoryItem[]; total: number }>;
  /** The context window, oldest first. */
  timeline(): Promise<MemoryEvent[]>;
  stats(): Promise<MemoryStats>;
  /**
   * Checks memory.db and its search index without changing them: SQLite's integrity check in a thread of its
   * own, then the index a chunk at a time, so turns and requests go on meanwhile. Within `timeoutMs` (default
   * 20 s, 1 s to 120 s): a part that runs out of time is "incomplete". One check runs at a time; a call while
   * one runs gets that one's result.
   */
  check(opts?: { timeoutMs?: number }): Promise<MemoryCheck>;
  /** One page of the graph, most mentioned entities first; `limit` default 200, at most 1000. */
  graph(opts?: { offset?: number; limit?: number }): Promise<MemoryGraphPage>;
  /**
   * The conversation of the sources starting with `source` (e.g. "webui"), newest first, older than
   * `before` (unix ms); `limit` default 50, at most 200. Read from memory itself, so what `forget` removed
   * is gone here too.
   */
  history(opts?: {
    source?: string;
    before?: number;
    limit?: number;
  }): Promise<{ items: HistoryEntry[]; more: boolean }>;
  /** Capability `memory_admin`: writes facts into the graph as the user's own (at most 100 per call). */
  commit(triples: MemoryTriple[], opts?: { sentence?: string }): Promise<{ added: number; updated: number }>;
  /**
   * Capability `memory_admin`: corrects the fact `id` (MemoryRelation.id) — the fields given replace the
   * old ones — in one step: every copy of the old fact leaves the graph and the corrected one is written,
   * or, if that fails, nothing changes. The conversation it came from is not rewritten (`forget` does
   * that). A stale id is refused with code "graph_not_found".
   */
  editFact(
    id: number,
    change: { subject?: string; relation?: string; object?: string },
  ): Promise<{ removed: number; fact: MemoryRelation }>;
  /** Capability `memory_admin`: deletes the fact `id`, every copy of it; a stale id: "graph_not_found". */
  deleteFact(id: number): Promise<{ removed: number }>;
  /** Capability `memory_admin`: runs one heartbeat loop now. */
  runLoop(name: MemoryLoop): Promise<{ loop: string; summary: string }>;
  /**
   * Capability `memory_admin`: removes what matches `query` from every layer, index and the raw log, and
   * asks every running plugin's `onForget` handler to do the same with its own data; then the databases are
   * scrubbed in the background (`ForgetReport.scrub`, `stats().scrub`). With `confirm: false` it only
   * reports what would go. The knowledge base is listed but left alone unless `knowledge: true`.
   */
  forget(query: string, opts: { confirm: boolean; knowledge?: boolean }): Promise<ForgetReport>;
}

export interface MemoryDoc {
  id: string;
  summary: string;
  /** The verbatim text. */
  content: string;
  tags: string[];
  entities: string[];
  /** "context_archived", "manual", "graph" or "context". */
  source: string;
  createdAt: number;
  updatedAt: number;
  accessCount: number;
  /** Time span of the conversation it holds (archived context). */
  tsStart: number;
  tsEnd: number;
  /** Relevance to the query (query only). */
  score?: number;
}

/** Reading documents never consumes them (unlike the model's doc_query). */
export interface DocMemoryAPI {
  query(q: string, topK?: number): Promise<MemoryDoc[]>;
  get(id: string): Promise<MemoryDoc | null>;
  list(opts: { offset?: number; limit?: number }): Promise<{ items: MemoryDoc[]; total: number }>;
}

export interface PersonInfo {
  name: string;
  traits: Record<string, string>;
  relations: Array<{ relation: string; person: string }>;
}

export interface PersonNetwork {
  name: string;
  depth: number;
  people: Array<{ name: string; distance: number }>;
  relations: Array<{ from: string; relation: string; to: string }>;
}

export interface SocialAPI {
  person(name: string): Promise<PersonInfo | null>;
  /** People within `depth` relations (default 2). */
  network(name: string, depth?: number): Promise<PersonNetwork>;
}
