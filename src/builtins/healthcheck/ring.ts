/** A list that keeps only its newest entries: perf records and self-test reports never grow without bound. */
export class Ring<T> {
  private items: T[] = [];

  constructor(private capacity: () => number) {}

  push(item: T): void {
    this.items.push(item);
    const over = this.items.length - this.capacity();
    if (over > 0) this.items.splice(0, over);
  }

  /** Oldest first. */
  list(): readonly T[] {
    const over = this.items.length - this.capacity();
    if (over > 0) this.items.splice(0, over);
    return this.items;
  }
}
