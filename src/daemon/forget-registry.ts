/**
 * Which database column under the data dir can hold the user's words, and who forgets them. Every TEXT,
 * BLOB or untyped column of every table of every SQLite file the daemon keeps is declared here, either
 * forgotten by a named component or exempt with the reason. A test opens the databases of a daemon that has
 * run and fails on any column that is not declared (forget-registry.test.ts), so a table added later —
 * timers, an inbox, approvals, transcripts — cannot be forgotten by mistake: its author has to decide here.
 *
 * Plugins keep their own files under `plugin_data/<name>/`: those are theirs to forget (`sdk.onForget`),
 * and are not walked.
 */

export type ColumnRule = { forgottenBy: string } | { exempt: string };

export interface DatabaseRules {
  /** The file, relative to the data dir. */
  file: string;
  tables: Readonly<Record<string, Readonly<Record<string, ColumnRule>>>>;
  /** Tables named by a pattern (one per vector space), with the same columns each. */
  patterns?: ReadonlyArray<{ name: RegExp; columns: Readonly<Record<string, ColumnRule>> }>;
}

const forgotten = (by: string): ColumnRule => ({ forgottenBy: by });
const exempt = (reason: string): ColumnRule => ({ exempt: reason });

const CONTEXT = forgotten("memory: the context window (forget.ts, the event's row)");
const DOCUMENTS = forgotten("memory: documents and archived turns (DocStore.forget)");
const GRAPH = forgotten("memory: the graph (graph-forget.ts)");
const DISTILL = forgotten("memory: distillation (pipeline candidates, merge notes)");
const INDEX = forgotten("retrieval: removed with the item its layer forgets; forget sweeps what is left");
const KNOWLEDGE = forgotten("knowledge base: only when asked (--knowledge), knowledge/forget.ts");
const INBOX = forgotten("io: the inbox (Inbox.forget)");
const APPROVALS = forgotten("io: approvals asked and remembered (ApprovalStore.forget)");
const TRANSCRIPTS = forgotten("transcripts: an entry mentioning the text goes whole (TranscriptStore.forget)");
const CHANNEL = exempt("the plugin and channel names a turn came through, not what was said");
const SQLITE = { name: exempt("SQLite's own bookkeeping: table names"), seq: exempt("the last id given out") };

/** The search index's tables, in memory.db and in the knowledge base's own file. */
function searchTables(text: ColumnRule) {
  return {
    tables: {
      search_items: {
        id: exempt("item ids (ctx:12, turn:7, ent:3, a knowledge path) name rows, not what they say"),
        kind: exempt("the item's kind: turn, entity, document, knowledge"),
        text,
        terms: text,
        meta: text,
      },
      search_spaces: { fingerprint: exempt("the embedding provider's fingerprint") },
    },
    patterns: [{ name: /^search_vec_\d+_q$/, columns: { q: text } }],
  };
}

const memory = searchTables(INDEX);
const knowledge = searchTables(KNOWLEDGE);

export const FORGET_REGISTRY: readonly DatabaseRules[] = [
  {
    file: "memory.db",
    tables: {
      ...memory.tables,
      sqlite_sequence: SQLITE,
      schema_versions: { layer: exempt("the names of memory's layers, for migrations") },
      memory_keys: {
        name: exempt("the purpose of a key"),
        key: exempt("a random key for keyed hashes (keyed-hash.ts)"),
      },
      context_window: {
        kind: exempt("user, agent or cold_storage"),
        source: CHANNEL,
        channel: CHANNEL,
        input: CONTEXT,
        response: CONTEXT,
        tools_used: CONTEXT,
        tool_results: CONTEXT,
        clean_input: CONTEXT,
        unanswered: CONTEXT,
        request_id: exempt("the request id of a user's turn"),
      },
      context_versions: {
        request_id: exempt("the request id of a user's turn"),
        channel: CHANNEL,
        event: CONTEXT,
      },
      documents: {
        id: exempt("a random document id"),
        summary: DOCUMENTS,
        content: DOCUMENTS,
        tags: DOCUMENTS,
        entities: DOCUMENTS,
        source: exempt("context_archived, manual, graph or context"),
        meta: DOCUMENTS,
        content_hash: exempt("a hash of the content, replaced when the content is rewritten"),
      },
      doc_turns: {
        doc_id: exempt("a random document id"),
        source: CHANNEL,
        channel: CHANNEL,
        input: DOCUMENTS,
        response: DOCUMENTS,
      },
      entities: { name: GRAPH, type: GRAPH },
      sentences: { text: GRAPH },
      relations: {
        relation_type: GRAPH,
        status: exempt("active, deleted or archived"),
        session_id: exempt("the id of the session a fact was stored in"),
        date_bucket: exempt("a date (YYYY-MM-DD)"),
      },
      person_traits: { trait: GRAPH, value: GRAPH },
      fact_rejections: {
        fact_key: exempt("a keyed hash of a removed fact; no text (fact-rejections.ts)"),
        name_keys: GRAPH,
      },
      distill_candidates: {
        session: exempt("the id of the session a line was said in"),
        role: exempt("user or assistant"),
        content: DISTILL,
      },
      distill_no_merge: { a: DISTILL, b: DISTILL },
      distill_archive_progress: { doc_id: exempt("a random document id") },
      inbox: { channel: CHANNEL, kind: exempt("reminder, result, notice, reply"), text: INBOX },
      approvals_remembered: {
        id: exempt("a random approval id"),
        plugin: exempt("the name of the plugin that asked"),
        subject_hash: exempt("a SHA-256 hash of what was approved"),
        question: APPROVALS,
      },
      approvals_log: {
        id: exempt("a random approval id"),
        plugin: exempt("the name of the plugin that asked"),
        channel: CHANNEL,
        question: APPROVALS,
        outcome: exempt("once, always, remembered, denied, timeout, no_client or cancelled"),
        answered_by: exempt("the client that answered: waiter or dashboard"),
      },
    },
    patterns: memory.patterns,
  },
  {
    file: "transcripts.db",
    tables: {
      sqlite_sequence: SQLITE,
      transcripts: {
        kind: exempt("turn or message"),
        request_id: exempt("a random request id"),
        source: CHANNEL,
        channel: CHANNEL,
        input: TRANSCRIPTS,
        reasoning: TRANSCRIPTS,
        reply: TRANSCRIPTS,
        status: exempt("running, done, error, stopped or interrupted"),
        error: TRANSCRIPTS,
        message_kind: exempt("reminder, result, notice"),
        replaces: exempt("the request id of the turn it replaced"),
      },
      transcript_items: { key: exempt("tool:<call id> or approval:<id>"), body: TRANSCRIPTS },
      // Contentless FTS5: the index holds the entries' tokens, deleted with their rows.
      transcript_search: { terms: TRANSCRIPTS },
      transcript_search_data: { block: TRANSCRIPTS },
      transcript_search_idx: {
        segid: exempt("FTS5 segment ids"),
        term: TRANSCRIPTS,
        pgno: exempt("FTS5 page numbers"),
      },
      transcript_search_docsize: { sz: exempt("FTS5 token counts") },
      transcript_search_config: { k: exempt("FTS5's settings"), v: exempt("FTS5's settings") },
    },
  },
  {
    file: "config.db",
    tables: {
      config: {
        key: exempt("setting names"),
        value: exempt("setting values: what the user configured, not what was said (secrets are masked)"),
      },
      disabled_plugins: { name: exempt("plugin names"), disabled_by: exempt("who disabled a plugin") },
      auth_credentials: {
        user: exempt("the login name"),
        password_hash: exempt("an scrypt hash"),
        api_key_hash: exempt("a SHA-256 hash"),
      },
    },
  },
  {
    file: "knowledge/.index.db",
    tables: {
      ...knowledge.tables,
      knowledge_files: { path: KNOWLEDGE, stamp: exempt("a file's mtime and size") },
    },
    patterns: knowledge.patterns,
  },
];

/** The rule for one column, or undefined when it is not declared. */
export function ruleFor(rules: DatabaseRules, table: string, column: string): ColumnRule | undefined {
  const declared = rules.tables[table] ?? rules.patterns?.find((p) => p.name.test(table))?.columns;
  return declared?.[column];
}

/** Whether a column of this declared SQLite type can hold text or bytes (TEXT, BLOB, or no type at all). */
export function holdsText(declaredType: string): boolean {
  return declaredType === "" || /CHAR|CLOB|TEXT|BLOB/i.test(declaredType);
}
