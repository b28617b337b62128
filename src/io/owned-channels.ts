/**
 * The part input and output channels share: channels by name, each owned by the plugin that registered it,
 * all of one plugin dropped at once when it stops.
 */
import { deleteOwned } from "../util/object.js";

export class OwnedChannels<T extends { name: string; owner: string }> {
  protected readonly channels = new Map<string, T>();

  /** Removes every channel of `owner`; returns how many there were. */
  unregisterPlugin(owner: string): number {
    return deleteOwned(this.channels, owner);
  }

  get(name: string): T | undefined {
    return this.channels.get(name);
  }

  names(): string[] {
    return [...this.channels.keys()].sort();
  }
}
