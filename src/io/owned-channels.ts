/**
 * The part input and output channels share: channels by name, each owned by the plugin that registered it,
 * all of one plugin dropped at once when it stops.
 */
export class OwnedChannels<T extends { name: string; owner: string }> {
  protected readonly channels = new Map<string, T>();

  /** Removes every channel of `owner`; returns how many there were. */
  unregisterPlugin(owner: string): number {
    let n = 0;
    for (const [name, ch] of this.channels) {
      if (ch.owner === owner) {
        this.channels.delete(name);
        n++;
      }
    }
    return n;
  }

  get(name: string): T | undefined {
    return this.channels.get(name);
  }

  names(): string[] {
    return [...this.channels.keys()].sort();
  }
}
