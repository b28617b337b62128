/**
 * Where the archive loop is inside a long document: the index of the next turn to distill, written right
 * after each graph commit. A document of hundreds of turns takes many job steps, and a restart in the
 * middle must not commit its first turns again (every commit adds a mention to its entities).
 *
 * The commit and this record are two transactions (GraphDB.commit opens its own, and SearchIndex.write
 * refuses to nest), so a kill exactly between them still repeats that one turn's commit.
 */
import type { DB } from "../store.js";
import { migrateDistill } from "./schema.js";

export class ArchiveProgress {
  private readonly st;

  constructor(db: DB) {
    migrateDistill(db);
    this.st = {
      get: db.prepare("SELECT next_turn FROM distill_archive_progress WHERE doc_id = ?").pluck(),
      set: db.prepare(
        `INSERT INTO distill_archive_progress (doc_id, next_turn, updated_at) VALUES (?, ?, ?)
           ON CONFLICT(doc_id) DO UPDATE SET next_turn = excluded.next_turn, updated_at = excluded.updated_at`,
      ),
      clear: db.prepare("DELETE FROM distill_archive_progress WHERE doc_id = ?"),
      ids: db.prepare("SELECT doc_id FROM distill_archive_progress").pluck(),
    };
  }

  /** The next turn of `docId` to distill (0 when it was never started). */
  next(docId: string): number {
    return (this.st.get.get(docId) as number | undefined) ?? 0;
  }

  set(docId: string, nextTurn: number, at: number): void {
    this.st.set.run(docId, nextTurn, at);
  }

  clear(docId: string): void {
    this.st.clear.run(docId);
  }

  /** Drops the records of documents that are gone (consumed by doc_query, forgotten); returns how many. */
  dropGone(exists: (docId: string) => boolean): number {
    let n = 0;
    for (const id of this.st.ids.all() as string[]) {
      if (!exists(id)) n += this.st.clear.run(id).changes;
    }
    return n;
  }
}
