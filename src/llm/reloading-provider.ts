/**
 * A Provider that follows its adapter file: before each call it compares the file's stat with the one it
 * was built from, and on a change reads the script again and builds a fresh provider. Editing
 * `<data>/adapters/<name>.lua` therefore applies from the next request, without a restart; a call already
 * running finishes on the script it started with.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@homeagent/sdk";
import { adaptersDir, loadAdapterSource } from "./adapters.js";
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
  /** Builds the provider for one version of the script. */
  build: (adapterSource: string) => Provider;
  log?: Logger;
}

export class ReloadingProvider implements Provider {
  readonly name: string;
  readonly model: string;
  private provider: Provider;
  private stamp: string;

  /** Throws when the adapter cannot be read, so a source with a missing adapter is never set up. */
  constructor(private readonly opts: ReloadingProviderOptions) {
    this.stamp = this.currentStamp();
    this.provider = opts.build(loadAdapterSource(opts.dataDir, opts.adapter));
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
    const stamp = this.currentStamp();
    if (stamp === this.stamp) return this.provider;
    let source: string;
    try {
      source = loadAdapterSource(this.opts.dataDir, this.opts.adapter);
    } catch (err) {
      throw new ProviderError(`adapter ${this.opts.adapter} (source ${this.name}): ${(err as Error).message}`, "fatal");
    }
    this.provider = this.opts.build(source);
    this.stamp = stamp;
    this.opts.log?.info(`adapter ${this.opts.adapter} changed on disk; source ${this.name} uses the new version`);
    return this.provider;
  }

  // mtime alone can miss two saves within the file system's timestamp resolution; size and ctime narrow that.
  private currentStamp(): string {
    try {
      const s = statSync(join(adaptersDir(this.opts.dataDir), `${this.opts.adapter}.lua`));
      return `${s.mtimeMs}:${s.ctimeMs}:${s.size}:${s.ino}`;
    } catch {
      return "missing";
    }
  }
}
