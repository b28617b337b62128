/**
 * The keyword index checked against the items it indexes: an item's stored terms must be the terms of its
 * text, or the words it holds no longer find it (a write cut short, a row changed by hand, a damaged page).
 * Read-only, and a slice of rows at a time with the event loop free between two, so a large index never
 * holds a turn up; it stops where it is when its deadline passes and says how far it got.
 */
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type Database from "better-sqlite3";
import { termsOf } from "./keyword-index.js";

/** Rows, and characters of text, read and tokenized in one slice: a few milliseconds of the event loop. */
const SLICE_ROWS = 200;
const SLICE_CHARS = 64 * 1024;

export interface TermsCheck {
  /** Items in the index when the check began. */
  rows: number;
  checked: number;
  /** Items whose stored terms are not those of their text. */
  mismatched: number;
  /** The first of them (item id and what differs), at most `maxProblems`. */
  problems: string[];
  /** False when the deadline came first. */
  complete: boolean;
}

export interface TermsCheckOptions {
  /** performance.now() value after which it stops. */
  deadline: number;
  maxProblems: number;
}

type Row = { rowid: number; id: string; text: string; terms: string };

export async function checkTerms(db: Database.Database, opts: TermsCheckOptions): Promise<TermsCheck> {
  const rows = db.prepare<[], number>("SELECT count(*) FROM search_items").pluck().get() ?? 0;
  const page = db.prepare<[number, number], Row>(
    "SELECT rowid, id, text, terms FROM search_items WHERE rowid > ? ORDER BY rowid LIMIT ?",
  );
  const out: TermsCheck = { rows, checked: 0, mismatched: 0, problems: [], complete: false };
  let after = 0;
  for (;;) {
    if (performance.now() > opts.deadline) return out;
    const slice = readSlice(page, after);
    if (slice.length === 0) break;
    for (const row of slice) {
      const problem = mismatch(row);
      if (problem) {
        out.mismatched++;
        if (out.problems.length < opts.maxProblems) out.problems.push(problem);
      }
    }
    out.checked += slice.length;
    after = slice[slice.length - 1].rowid;
    await yieldToLoop();
  }
  out.complete = true;
  return out;
}

/** Up to SLICE_ROWS rows after `after`, fewer once their text passes SLICE_CHARS. */
function readSlice(page: Database.Statement<[number, number], Row>, after: number): Row[] {
  const slice: Row[] = [];
  let chars = 0;
  for (const row of page.iterate(after, SLICE_ROWS)) {
    slice.push(row);
    chars += row.text.length;
    if (chars >= SLICE_CHARS) break;
  }
  return slice;
}

/** What is wrong with the row's terms, or undefined. Names the item, never its text. */
function mismatch(row: Row): string | undefined {
  const expected = termsOf(row.text).join(" ");
  if (expected === row.terms) return undefined;
  const stored = new Set(row.terms.split(" ").filter(Boolean));
  const wanted = new Set(expected.split(" ").filter(Boolean));
  const missing = [...wanted].filter((t) => !stored.has(t)).length;
  const extra = [...stored].filter((t) => !wanted.has(t)).length;
  return `item ${row.id}: its keyword terms do not match its text (${missing} missing, ${extra} not in the text)`;
}
