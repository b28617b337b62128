/**
 * A Provider that follows its adapter file and the libraries in `<data>/adapters/lib/`: before each call it
 * compares their stats with the ones it was built from, and on a change reads the script and libraries
 * again and builds a fresh provider. Editing `<data>/adapters/<name>.lua` or a library therefore applies
 * from the next request, without a restart; a call already running finishes on the script it started with.
 * Every library counts, not only those the adapter imports: which ones it imports is only known by running
 * it, and a needless rebuild costs no more than a fresh Lua state.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@homeagent/sdk";
import { adaptersDir, librariesDir, loadAdapterLibraries, loadAdapterSource, luaNames } from "./adapters.js";
import {
  type CallOptions,
  type CompletionRequest,
  type CompletionResponse,
  type Provider,
  ProviderError,
  type StreamChunk,
} from "./provider.js";

export interface ReloadingProviderOptions {
  dataDir: string;
  adapter: string;
  /** Builds the provider for one version of the script and of the libraries (name → source). */
  build: (adapterSource: string, libraries: Readonly<Record<string, string>>) => Provider;
  log?: Logger;
}

/** File (relative to the adapters directory) → stat stamp. */
type Stamps = Map<string, string>;

export class ReloadingProvider implements Provider {
  readonly name: string;
  readonly model: string;
  private provider: Provider;
  private stamps: Stamps;

  /** Throws when the adapter cannot be read, so a source with a missing adapter is never set up. */
  constructor(private readonly opts: ReloadingProviderOptions) {
    this.stamps = this.currentStamps();
    this.provider = opts.build(loadAdapterSource(opts.dataDir, opts.adapter), loadAdapterLibraries(opts.dataDir));
    this.name = this.provider.name;
    this.model = this.provider.model;
  }

  chat(req: CompletionRequest, opts?: CallOptions): Promise<CompletionResponse> {
    return this.current().chat(req, opts);
  }

  chatStream(req: CompletionRequest, opts?: CallOptions): AsyncIterable<StreamChunk> {
    return this.current().chatStream(req, opts);
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
      throw new ProviderError(`adapter ${adapter} (source ${this.name}): ${(err as Error).message}`, "fatal");
    }
    this.provider = this.opts.build(source, libraries);
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
    stamps.set(`${this.opts.adapter}.lua`, stampOf(join(adaptersDir(this.opts.dataDir), `${this.opts.adapter}.lua`)));
    const libDir = librariesDir(this.opts.dataDir);
    for (const lib of luaNames(libDir)) stamps.set(`lib/${lib}.lua`, stampOf(join(libDir, `${lib}.lua`)));
    return stamps;
  }
}

// mtime alone can miss two saves within the file system's timestamp resolution; size and ctime narrow that.
function stampOf(file: string): string {
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.ctimeMs}:${s.size}:${s.ino}`;
  } catch {
    return "missing";
  }
}

/** Files added, removed or changed between two sets of stamps. */
function changedFiles(before: Stamps, after: Stamps): string[] {
  const files = new Set([...before.keys(), ...after.keys()]);
  return [...files].filter((f) => before.get(f) !== after.get(f)).sort();
}
