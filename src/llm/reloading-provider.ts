/**
 * A Provider that follows its adapter file and the libraries in `<data>/adapters/lib/`: before each call it
 * compares their stats with the ones it was built from, and on a change reads the script and libraries
 * again and builds a fresh provider. Editing `<data>/adapters/<name>.lua` or a library therefore applies
 * from the next request, without a restart; a call already running finishes on the script it started with.
 * Every library counts, not only those the adapter imports: which ones it imports is only known by running
 * it, and a needless rebuild costs no more than a fresh Lua state.
 *
 * A replaced provider is closed (its Lua worker stopped) as soon as the last call it was serving has ended,
 * rather than left for the garbage collector.
 */
import { join } from "node:path";
import type { Logger } from "@homeagent/sdk";
import type { CompletionRequest, CompletionResponse, StreamChunk } from "../kernel/llm-spec.js";
import { errorMessage } from "../util/errors.js";
import { fileStamp } from "../util/file-stamp.js";
import { adaptersDir, librariesDir, loadAdapterLibraries, loadAdapterSource, luaNames } from "./adapters.js";
import { IdleClose } from "./idle-close.js";
import { type CallOptions, type Provider, ProviderError } from "./provider.js";

export interface ReloadingProviderOptions {
  dataDir: string;
  adapter: string;
  /**
   * Builds the provider for one version of the script and of the libraries (name → source). If it has a
   * `close()`, that is called once the provider has been replaced and is idle.
   */
  build: (adapterSource: string, libraries: Readonly<Record<string, string>>) => Provider;
  log?: Logger;
}

/** File (relative to the adapters directory) → stat stamp. */
type Stamps = Map<string, string>;

type Closable = Provider & { close?: () => unknown };

export class ReloadingProvider implements Provider {
  readonly name: string;
  readonly model: string;
  private provider: Closable;
  private stamps: Stamps;
  /** Each version's calls, so that a replaced one is closed only when it is idle. */
  private readonly closers = new Map<Closable, IdleClose>();

  /** Throws when the adapter cannot be read, so a source with a missing adapter is never set up. */
  constructor(private readonly opts: ReloadingProviderOptions) {
    this.stamps = this.currentStamps();
    this.provider = opts.build(loadAdapterSource(opts.dataDir, opts.adapter), loadAdapterLibraries(opts.dataDir));
    this.name = this.provider.name;
    this.model = this.provider.model;
  }

  async chat(req: CompletionRequest, opts?: CallOptions): Promise<CompletionResponse> {
    const provider = this.current();
    const closer = this.closerOf(provider);
    closer.begin();
    try {
      return await provider.chat(req, opts);
    } finally {
      closer.end();
    }
  }

  chatStream(req: CompletionRequest, opts?: CallOptions): AsyncIterable<StreamChunk> {
    const provider = this.current();
    const closer = this.closerOf(provider);
    closer.begin();
    return this.tracked(closer, provider.chatStream(req, opts));
  }

  // A stream that is never iterated never ends here: its provider is then left to the garbage collector.
  private async *tracked(closer: IdleClose, stream: AsyncIterable<StreamChunk>): AsyncGenerator<StreamChunk> {
    try {
      yield* stream;
    } finally {
      closer.end();
    }
  }

  async warm(): Promise<void> {
    await this.current().warm?.();
  }

  /** Closes the current version once its calls have ended (ProviderManager: the source was replaced). */
  close(): void {
    this.retire(this.provider);
  }

  /** Its calls in flight hold its IdleClose: the map forgets it, the last of them closes it. */
  private retire(provider: Closable): void {
    this.closerOf(provider).retire();
    this.closers.delete(provider);
  }

  private closerOf(provider: Closable): IdleClose {
    let closer = this.closers.get(provider);
    if (!closer) {
      closer = new IdleClose(
        () => provider.close?.(),
        (why) =>
          this.opts.log?.warn(`adapter ${this.opts.adapter} (source ${this.name}): closing the old version: ${why}`),
      );
      this.closers.set(provider, closer);
    }
    return closer;
  }

  private current(): Provider {
    const stamps = this.currentStamps();
    const changed = changedFiles(this.stamps, stamps);
    if (changed.length === 0) return this.provider;
    const { dataDir, adapter } = this.opts;
    let source: string;
    let libraries: Record<string, string>;
    try {
      source = loadAdapterSource(dataDir, adapter);
      libraries = loadAdapterLibraries(dataDir);
    } catch (err) {
      throw new ProviderError(`adapter ${adapter} (source ${this.name}): ${errorMessage(err)}`, "fatal", {
        cause: err,
      });
    }
    const old = this.provider;
    this.provider = this.opts.build(source, libraries);
    this.retire(old);
    this.stamps = stamps;
    this.opts.log?.info(
      changed.includes(`${adapter}.lua`)
        ? `adapter ${adapter} changed on disk; source ${this.name} uses the new version`
        : `adapter ${adapter}: ${changed.join(", ")} changed on disk; source ${this.name} uses the new version`,
    );
    return this.provider;
  }

  private currentStamps(): Stamps {
    const stamps: Stamps = new Map();
    stamps.set(
      `${this.opts.adapter}.lua`,
      fileStamp(join(adaptersDir(this.opts.dataDir), `${this.opts.adapter}.lua`)) ?? "missing",
    );
    const libDir = librariesDir(this.opts.dataDir);
    for (const lib of luaNames(libDir))
      stamps.set(`lib/${lib}.lua`, fileStamp(join(libDir, `${lib}.lua`)) ?? "missing");
    return stamps;
  }
}

/** Files added, removed or changed between two sets of stamps. */
function changedFiles(before: Stamps, after: Stamps): string[] {
  const files = new Set([...before.keys(), ...after.keys()]);
  return [...files].filter((f) => before.get(f) !== after.get(f)).sort();
}
