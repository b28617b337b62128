/**
 * The `capacity` best of a stream of scored ids without sorting the stream: BM25 and the vector postings
 * both score thousands of rows per query and keep a few dozen. Best = higher score, then the lower id
 * (the older item), so equal scores always rank the same way.
 */

export interface Scored {
  doc: number;
  score: number;
}

/** Keeps the `capacity` best (score desc, doc asc) entries seen; the worst kept sits at the root. */
export class WorstFirstHeap {
  private readonly items: Scored[] = [];

  constructor(private readonly capacity: number) {}

  offer(doc: number, score: number): void {
    if (this.items.length < this.capacity) {
      this.items.push({ doc, score });
      this.up(this.items.length - 1);
      return;
    }
    const root = this.items[0];
    // Most candidates lose to the current worst kept: decide before allocating anything.
    if (score < root.score || (score === root.score && doc > root.doc)) return;
    this.items[0] = { doc, score };
    this.down(0);
  }

  drain(): Scored[] {
    return this.items.sort((a, b) => (better(a, b) ? -1 : 1));
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!better(this.items[parent], this.items[i])) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < n && better(this.items[worst], this.items[l])) worst = l;
      if (r < n && better(this.items[worst], this.items[r])) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(a: number, b: number): void {
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
  }
}

function better(a: Scored, b: Scored): boolean {
  return a.score > b.score || (a.score === b.score && a.doc < b.doc);
}
