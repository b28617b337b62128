/**
 * Searching transcripts: an FTS5 index over the shared tokenizer's tokens (FTS5's own tokenizers cannot cut
 * Chinese), contentless so the index holds no second copy of the text, and rows deletable so a forget or an
 * expiry leaves nothing behind. An entry changes while its turn runs, so it is indexed later, a few at a
 * time off the turn's path; a search first catches up, and entries not yet indexed at a restart are found by
 * their flag.
 */
import type Database from "better-sqlite3";
import { tokenize } from "../embedding/text.js";
import { cachedStatement } from "../util/statements.js";

/** Entries indexed in one go of the background. */
const BATCH = 64;
/** How long indexing waits after a write, gathering the writes that follow. */
const INDEX_DELAY_MS = 1_000;
/** Characters a search indexes before it runs, at most, and one background batch. */
const CATCH_UP = 500_000;
const BATCH_CHARS = 200_000;
/** What of one entry is searchable: its first 100,000 characters (input, reasoning, reply, tool calls). */
const ENTRY_CHARS = 100_000;

export interface FindOptions {
  before: number;
  channel: string | null;
  take: number;
}

export class TranscriptSearch {
  private scheduled = false;

  constructor(
    private readonly db: Database.Database,
    private readonly textOf: (id: number) => string,
  ) {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS transcript_search USING fts5(terms, content='', contentless_delete=1)`);
    // What a stop left unindexed (or a file from before the index) is indexed in the background.
    this.schedule();
  }

  drop(id: number): void {
    cachedStatement(this.db, "DELETE FROM transcript_search WHERE rowid = ?").run(id);
  }

  /**
   * Indexes what is due (rows with `indexed = 0`) a moment later, in batches: off the turn's path, and
   * many turns in one write when they come back to back.
   */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const step = () => {
      // The daemon may have stopped meanwhile: what is due is indexed at the next start.
      // A batch at a time, the event loop free between two: a backlog never holds the daemon for long.
      if (this.db.open && this.indexSome(BATCH, BATCH_CHARS) > 0) setImmediate(step);
      else this.scheduled = false;
    };
    setTimeout(step, INDEX_DELAY_MS).unref();
  }

  /**
   * Before a search: what is due now, up to CATCH_UP characters (the turns of the last second, normally). A
   * larger backlog (after a restart) is left to the background, so a search never stalls the daemon.
   */
  catchUp(): void {
    this.indexSome(BATCH, CATCH_UP);
  }

  /** Merges the index, so that the words of deleted rows leave its stored blocks (after a forget). */
  compact(): void {
    cachedStatement(this.db, "INSERT INTO transcript_search (transcript_search) VALUES ('optimize')").run();
  }

  /** Entries older than `before` (on `channel`) whose text holds every word of `query` (or words they start), newest first. */
  find(query: string, opts: FindOptions): unknown[] {
    const tokens = [...new Set(tokenize(query))];
    if (tokens.length === 0) return [];
    // Each word as a prefix: "iphone" finds iphone15pro, "meeting" finds meetings.
    const match = tokens.map((t) => `"${t.replaceAll('"', '""')}"*`).join(" ");
    return cachedStatement(
      this.db,
      `SELECT t.* FROM transcript_search s JOIN transcripts t ON t.id = s.rowid
       WHERE transcript_search MATCH @match AND t.id < @before AND (@channel IS NULL OR t.channel = @channel)
       ORDER BY t.id DESC LIMIT @take`,
    ).all({ match, ...opts });
  }

  /**
   * Indexes up to `max` due entries, stopping once `chars` characters were tokenized (one huge entry alone
   * costs a second of jieba); each entry's text is indexed up to ENTRY_CHARS. Returns how many.
   */
  private indexSome(max: number, chars: number): number {
    const ids = cachedStatement(this.db, "SELECT id FROM transcripts WHERE indexed = 0 AND status <> 'running' LIMIT ?")
      .pluck()
      .all(max) as number[];
    if (ids.length === 0) return 0;
    const put = cachedStatement(this.db, "INSERT INTO transcript_search (rowid, terms) VALUES (?, ?)");
    const done = cachedStatement(this.db, "UPDATE transcripts SET indexed = 1 WHERE id = ?");
    let spent = 0;
    let n = 0;
    this.db.transaction(() => {
      for (const id of ids) {
        if (n > 0 && spent >= chars) break;
        const text = this.textOf(id).slice(0, ENTRY_CHARS);
        spent += text.length;
        this.drop(id);
        put.run(id, tokenize(text).join(" "));
        done.run(id);
        n++;
      }
    })();
    return n;
  }
}
