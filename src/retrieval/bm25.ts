/**
 * An in-memory BM25 inverted index over the shared tokenizer's tokens (Latin words Porter-stemmed, as
 * FTS5's `porter` tokenizer did). It replaces FTS5's ranking because FTS5 computes bm25() for every
 * matching row — about 2 µs each, 50 ms for a common word in 100k items — while accumulating scores
 * over typed-array postings costs a few nanoseconds per posting. The items table in SQLite stays the
 * durable source; this index is rebuilt from its stored terms when the database is opened.
 */
import { stemmer } from "stemmer";
import { HomeAgentError } from "../util/errors.js";
import { type Scored, WorstFirstHeap } from "./top-heap.js";

/**
 * Chosen on the LoCoMo development split (recall@10 with the default fusion): k1 1.2 / b 0.75 (the usual
 * defaults) 0.636, 0.9 / 0.4 0.643, 0.6 / 0.4 0.642, 1.5 / 0.4 0.639. Conversation turns and notes are
 * short and of similar length, so normalising by length (b) helps less than for long documents. Checked
 * again with the lexical tier's query weighting (lexical-query.ts): 0.6 / 0.3 0.652, 1.2 / 0.3 0.653,
 * 1.2 / 0.75 0.639 against 0.654 for 0.9 / 0.4 (see /work/notes/issue8-locomo.md).
 */
export const K1 = 0.9;
export const B = 0.4;
/** Stale postings (of removed or replaced items) are compacted away once they are this share of all. */
const COMPACT_RATIO = 0.25;

/** The terms BM25 indexes for a token list: Latin words stemmed, CJK words and numbers as they are. */
export function bm25Terms(tokens: readonly string[]): string[] {
  return tokens.map((t) => (/^[a-z]+$/.test(t) ? stemmer(t) : t));
}

class Postings {
  /** Slots (see Bm25Index), not doc ids. */
  slots = new Int32Array(4);
  tfs = new Uint16Array(4);
  length = 0;

  push(slot: number, tf: number): void {
    if (this.length === this.slots.length) {
      const slots = new Int32Array(this.length * 2);
      const tfs = new Uint16Array(this.length * 2);
      slots.set(this.slots);
      tfs.set(this.tfs);
      this.slots = slots;
      this.tfs = tfs;
    }
    this.slots[this.length] = slot;
    this.tfs[this.length] = tf;
    this.length++;
  }
}

/** A document's id and score. */
export type Bm25Hit = Scored;

/** Restricts a query to documents of these kinds, in this ts range (inclusive) and passing `accept`. */
export interface Bm25Filter {
  kinds?: readonly string[] | null;
  since?: number;
  until?: number;
  accept?: (doc: number) => boolean;
}

/**
 * Postings name internal slots, not documents. A document gets a new slot each time it is added, so after
 * an update its old postings point at a dead slot (length 0) and can never count for it again; compaction
 * removes them and only then hands the slot out again.
 */
export class Bm25Index {
  private readonly postings = new Map<string, Postings>();
  /** Per doc id: its slot (0 = absent). */
  private slotOf = new Int32Array(1024);
  /** Per slot: its length in terms (0 = dead), kind and ts (for filters), doc id and postings entries owned. */
  private lengths = new Float32Array(1024);
  private kinds = new Int32Array(1024);
  private times = new Float64Array(1024);
  private docOf = new Int32Array(1024);
  private owned = new Int32Array(1024);
  private nextSlot = 1;
  /** Dead slots still named by postings, and slots free to reuse (compaction has removed their postings). */
  private retired: number[] = [];
  private free: number[] = [];
  private readonly kindIds = new Map<string, number>();
  private readonly df = new Map<string, number>();
  private docCount = 0;
  private totalLength = 0;
  private livePostings = 0;
  private stalePostings = 0;
  private scores = new Float64Array(1024);
  private touched: Int32Array = new Int32Array(1024);

  get size(): number {
    return this.docCount;
  }

  /** Indexes a document that is not in the index (delete it first to re-index). */
  add(doc: number, kind: string, terms: readonly string[], ts = 0): void {
    if (this.has(doc)) {
      throw new HomeAgentError({ code: "internal_error", message: `BM25 index already holds document ${doc}` });
    }
    if (terms.length === 0) return;
    const slot = this.takeSlot(doc);
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let p = this.postings.get(term);
      if (!p) {
        p = new Postings();
        this.postings.set(term, p);
      }
      p.push(slot, Math.min(tf, 0xffff));
      this.df.set(term, (this.df.get(term) ?? 0) + 1);
    }
    this.lengths[slot] = terms.length;
    this.kinds[slot] = this.kindId(kind);
    this.times[slot] = ts;
    this.owned[slot] = counts.size;
    this.docCount++;
    this.totalLength += terms.length;
    this.livePostings += counts.size;
  }

  /** Removes a document (given the terms it was indexed with); its postings go stale until compaction. */
  delete(doc: number, terms: readonly string[]): void {
    if (!this.has(doc)) return;
    const slot = this.slotOf[doc];
    for (const t of new Set(terms)) this.df.set(t, (this.df.get(t) ?? 1) - 1);
    this.docCount--;
    this.totalLength -= this.lengths[slot];
    this.livePostings -= this.owned[slot];
    this.stalePostings += this.owned[slot];
    this.lengths[slot] = 0;
    this.owned[slot] = 0;
    this.slotOf[doc] = 0;
    this.retired.push(slot);
    if (this.stalePostings > COMPACT_RATIO * (this.livePostings + this.stalePostings)) this.compact();
  }

  has(doc: number): boolean {
    return doc >= 0 && doc < this.slotOf.length && this.slotOf[doc] !== 0;
  }

  /** The `limit` best documents for the query terms (any of them), best first, among those `filter` lets through. */
  top(queryTerms: readonly string[], limit: number, filter: Bm25Filter = {}): Bm25Hit[] {
    if (this.docCount === 0 || limit <= 0) return [];
    const wanted = this.kindSet(filter.kinds);
    if (wanted && wanted.size === 0) return [];
    const since = filter.since ?? Number.NEGATIVE_INFINITY;
    const until = filter.until ?? Number.POSITIVE_INFINITY;
    const timed = since !== Number.NEGATIVE_INFINITY || until !== Number.POSITIVE_INFINITY;
    const { accept } = filter;
    const { scores, lengths, kinds, times, docOf } = this;
    let touched = this.touched;
    let count = 0;
    for (const term of new Set(queryTerms)) {
      const p = this.postings.get(term);
      if (!p || !this.df.get(term)) continue;
      const { weight, constant, lengthFactor } = this.termWeights(term);
      const { slots, tfs, length } = p;
      if (touched.length < count + length) touched = this.growTouched(count + length);
      for (let i = 0; i < length; i++) {
        const slot = slots[i];
        const len = lengths[slot];
        if (len === 0) continue;
        if (scores[slot] === 0) {
          // First time this query meets the slot: decide once whether the filter lets it through.
          if (wanted && !wanted.has(kinds[slot])) continue;
          if (timed && (times[slot] < since || times[slot] > until)) continue;
          if (accept && !accept(docOf[slot])) continue;
          touched[count++] = slot;
        }
        const tf = tfs[i];
        scores[slot] += (weight * tf) / (tf + constant + lengthFactor * len);
      }
    }
    const best = selectTop(touched, count, scores, docOf, limit);
    for (let i = 0; i < count; i++) scores[touched[i]] = 0;
    return best;
  }

  /** BM25 of the query for each of these documents that holds a query term (others are absent). */
  scoreDocs(queryTerms: readonly string[], docs: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    const slots = new Set<number>();
    for (const d of docs) if (this.has(d)) slots.add(this.slotOf[d]);
    if (slots.size === 0) return out;
    for (const term of new Set(queryTerms)) {
      const p = this.postings.get(term);
      if (!p || !this.df.get(term)) continue;
      const { weight, constant, lengthFactor } = this.termWeights(term);
      for (let i = 0; i < p.length; i++) {
        const slot = p.slots[i];
        if (!slots.has(slot) || this.lengths[slot] === 0) continue;
        const tf = p.tfs[i];
        const doc = this.docOf[slot];
        out.set(doc, (out.get(doc) ?? 0) + (weight * tf) / (tf + constant + lengthFactor * this.lengths[slot]));
      }
    }
    return out;
  }

  /** Inverse document frequency of a term (see termWeights); the highest value for a term no document holds. */
  idf(term: string): number {
    const df = this.df.get(term) ?? 0;
    // Lucene's form: always positive, so a term in most documents still counts a little (FTS5's
    // log((N - df + 0.5) / (df + 0.5)) goes to 0 and below there and had to be floored). LoCoMo dev
    // recall@10 of BM25 alone: 0.630 with FTS5's form, 0.639 with this one.
    return Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5));
  }

  /** A document's length in terms divided by the average length; 1 for a document not in the index. */
  lengthRatio(doc: number): number {
    if (!this.has(doc)) return 1;
    return this.lengths[this.slotOf[doc]] / (this.totalLength / this.docCount);
  }

  /** The ts a document was indexed with; undefined when it is not in the index. */
  tsOf(doc: number): number | undefined {
    return this.has(doc) ? this.times[this.slotOf[doc]] : undefined;
  }

  private termWeights(term: string): { weight: number; constant: number; lengthFactor: number } {
    const avgLength = this.totalLength / this.docCount;
    return { weight: this.idf(term) * (K1 + 1), constant: K1 * (1 - B), lengthFactor: (K1 * B) / avgLength };
  }

  private kindSet(kinds: readonly string[] | null | undefined): Set<number> | null {
    if (!kinds) return null;
    const ids = new Set<number>();
    for (const k of kinds) {
      const id = this.kindIds.get(k);
      if (id !== undefined) ids.add(id);
    }
    return ids;
  }

  /** Scratch list of the slots a query touched, reused across queries. */
  private growTouched(size: number): Int32Array {
    const next = new Int32Array(Math.max(size, this.touched.length * 2));
    next.set(this.touched);
    this.touched = next;
    return next;
  }

  private kindId(kind: string): number {
    let id = this.kindIds.get(kind);
    if (id === undefined) {
      id = this.kindIds.size;
      this.kindIds.set(kind, id);
    }
    return id;
  }

  private takeSlot(doc: number): number {
    if (!Number.isInteger(doc) || doc < 0) {
      throw new HomeAgentError({ code: "internal_error", message: `BM25 document ids are integers ≥ 0, got ${doc}` });
    }
    const slot = this.free.pop() ?? this.nextSlot++;
    if (doc >= this.slotOf.length) this.slotOf = grow(this.slotOf, sizeFor(doc, this.slotOf.length));
    if (slot >= this.lengths.length) {
      const size = sizeFor(slot, this.lengths.length);
      this.lengths = grow(this.lengths, size);
      this.kinds = grow(this.kinds, size);
      this.times = grow(this.times, size);
      this.docOf = grow(this.docOf, size);
      this.owned = grow(this.owned, size);
      this.scores = new Float64Array(size);
    }
    this.slotOf[doc] = slot;
    this.docOf[slot] = doc;
    return slot;
  }

  private compact(): void {
    for (const [term, p] of this.postings) {
      let w = 0;
      for (let r = 0; r < p.length; r++) {
        if (this.lengths[p.slots[r]] === 0) continue;
        p.slots[w] = p.slots[r];
        p.tfs[w] = p.tfs[r];
        w++;
      }
      p.length = w;
      if (w === 0) {
        this.postings.delete(term);
        this.df.delete(term);
      }
    }
    this.stalePostings = 0;
    this.free.push(...this.retired);
    this.retired = [];
  }
}

/** The first power-of-two multiple of `size` above `index`. */
function sizeFor(index: number, size: number): number {
  while (size <= index) size *= 2;
  return size;
}

function grow<T extends Float32Array | Float64Array | Int32Array>(a: T, size: number): T {
  const next = new (a.constructor as new (n: number) => T)(size);
  next.set(a);
  return next;
}

/** The `limit` highest-scoring docs, best first; equal scores go to the lower doc id (older item). */
function selectTop(
  slots: Int32Array,
  count: number,
  scores: Float64Array,
  docOf: Int32Array,
  limit: number,
): Bm25Hit[] {
  const heap = new WorstFirstHeap(limit);
  for (let i = 0; i < count; i++) heap.offer(docOf[slots[i]], scores[slots[i]]);
  return heap.drain();
}
