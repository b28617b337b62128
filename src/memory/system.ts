/**
 * MemorySystem: the three layers (RelevanceContext → DocStore → GraphDB) on one memory.db and one shared
 * SearchIndex, with what runs on them — the Indexer, related memory, the raw text log, the distill
 * pipeline and the heartbeat loops — and what the rest of the daemon uses: the kernel's ContextWindow and
 * MemoryContext, the memory tools, and the plugins' memory APIs. The kernel is handed in late (`attach`),
 * because the Agent needs the context window before memory can use its job lane and self-tasks.
 */
import { join } from "node:path";
import type { Logger } from "@homeagent/sdk";
import type { EmbeddingProvider } from "../embedding/spi.js";
import type { Job } from "../kernel/jobs.js";
import type { MemoryContext } from "../kernel/types.js";
import { SearchIndex } from "../retrieval/search.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { LOOP_KEYS } from "./distill/config.js";
import { Heartbeat, type LoopName } from "./distill/heartbeat.js";
import { DistillPipeline } from "./distill/pipeline.js";
import { type DocTool, docTools } from "./doc-tools.js";
import { DocStore } from "./documents/documents.js";
import { Forgetter } from "./forget.js";
import { ForgetService } from "./forget-service.js";
import { GraphDB } from "./graph/graph.js";
import { Indexer } from "./graph/indexer.js";
import { SocialStore } from "./graph/social.js";
import { graphTools } from "./graph-tools.js";
import { migrateLegacyContext } from "./legacy.js";
import { LayeredMemoryContext } from "./memory-context.js";
import { Scrubber } from "./scrub.js";
import { type DB, discardUpgradeBackups } from "./store.js";
import { TextLog } from "./textlog.js";
import { RelevanceContext } from "./window/context.js";

/** What memory needs of the kernel once it exists. */
export interface KernelPort {
  enqueueJob(job: Job): Promise<void>;
  status(): { busy: boolean };
  injectSelf(text: string, opts: { tools: string[] }): Promise<unknown>;
}

export interface MemorySettings {
  maxContextSize(): number;
  /** The user's zone ("" = the system's, already resolved by the caller). */
  zone(): string;
  /** A duration setting in ms. */
  duration(key: string): number;
}

export interface MemoryOptions {
  db: DB;
  dataDir: string;
  settings: MemorySettings;
  log: Logger;
}

export class MemorySystem {
  readonly index: SearchIndex;
  readonly context: RelevanceContext;
  readonly docs: DocStore;
  readonly graph: GraphDB;
  readonly social: SocialStore;
  readonly indexer: Indexer;
  readonly textlog: TextLog;
  readonly pipeline: DistillPipeline;
  readonly heartbeat: Heartbeat;
  readonly forgetter: Forgetter;
  readonly scrubber: Scrubber;
  readonly forgetting: ForgetService;
  readonly memoryContext: MemoryContext;
  private kernel: KernelPort | null = null;

  constructor(private readonly opts: MemoryOptions) {
    const { db, log, settings } = opts;
    this.index = new SearchIndex(db, { onError: (err) => log.warn(`memory index: ${err.message}`) });
    this.docs = new DocStore(db, this.index);
    this.context = new RelevanceContext(db, this.index, this.docs, {
      onOverflow: (events) =>
        log.warn(`context window over its safety cap: ${events.length} oldest event(s) archived early`),
      // The pipeline is made below; a swap only happens once turns run.
      onSwap: (left, came) => this.pipeline.swapped(left, came),
    });
    const migrated = migrateLegacyContext(db, this.index, this.context, this.docs);
    if (migrated) {
      log.info(
        `memory: migrated the old context (${migrated.window} in the window, ${migrated.archived} archived into ${migrated.documents} documents, ${migrated.dropped} dropped); backup ${migrated.backups.join(", ") || "none"}`,
      );
    }
    this.graph = new GraphDB(db, this.index, { log });
    this.social = new SocialStore(this.graph);
    this.indexer = new Indexer(this.graph, this.index);
    this.textlog = new TextLog(join(opts.dataDir, "memory", "text"), { log });
    const runJob = (job: Job) => this.port().enqueueJob(job);
    this.pipeline = new DistillPipeline({ db, graph: this.graph, runJob, log });
    this.heartbeat = new Heartbeat({
      interval: (loop: LoopName) => settings.duration(LOOP_KEYS[loop]),
      maxContextSize: () => settings.maxContextSize(),
      runJob,
      selfTask: (text, o) => this.port().injectSelf(text, o),
      db,
      pipeline: this.pipeline,
      context: this.context,
      docs: this.docs,
      graph: this.graph,
      index: this.index,
      timeZone: settings.zone(),
      log,
    });
    this.forgetter = new Forgetter({
      db,
      index: this.index,
      context: this.context,
      docs: this.docs,
      graph: this.graph,
      pipeline: this.pipeline,
      textlog: this.textlog,
      warn: (msg) => log.warn(msg),
    });
    this.scrubber = new Scrubber({ marker: join(opts.dataDir, "memory", "scrub-pending.json"), runJob, log });
    this.forgetting = new ForgetService({
      forgetter: this.forgetter,
      scrubber: this.scrubber,
      memoryDb: db.name,
      heldFile: join(opts.dataDir, "memory", "forget-held.json"),
      runJob,
      log,
    });
    this.memoryContext = new LayeredMemoryContext({
      index: this.index,
      indexer: this.indexer,
      docs: this.docs,
      textlog: this.textlog,
      pipeline: this.pipeline,
      zone: () => settings.zone(),
      warn: (msg) => log.warn(msg),
    });
  }

  /** memory.db, for the plugin API's reads that span layers (the conversation history). */
  get db(): DB {
    return this.opts.db;
  }

  /** The kernel is ready: the loops may start. Upgrade backups go once the daemon has started cleanly. */
  attach(kernel: KernelPort): void {
    this.kernel = kernel;
    this.heartbeat.start();
    if (this.opts.db.memory) return;
    this.scrubber.resume();
    this.forgetting
      .recoverHeld()
      .catch((err) => this.opts.log.warn(`memory: finishing an interrupted forget failed: ${errorMessage(err)}`));
  }

  /** Called when the daemon is up: a start that got this far no longer needs the pre-upgrade copy. */
  started(): void {
    for (const path of discardUpgradeBackups(this.opts.db))
      this.opts.log.info(`memory: removed upgrade backup ${path}`);
  }

  /** A loop interval changed: the next run is scheduled from the new value (0 stops the loop). */
  settingChanged(key: string): void {
    if ((Object.values(LOOP_KEYS) as string[]).includes(key)) this.heartbeat.reschedule();
  }

  /** core.agent.max_context_size as it is now: the window's limit that `/memory stats` reports. */
  maxContextSize(): number {
    return this.opts.settings.maxContextSize();
  }

  setEmbedder(embedder: EmbeddingProvider | null): void {
    this.index.setEmbedder(embedder);
  }

  tools(): DocTool[] {
    return [
      ...graphTools({
        graph: this.graph,
        social: this.social,
        indexer: this.indexer,
        forget: async (terms) => ({ ...(await this.forgetting.forgetTerms(terms)) }),
      }),
      ...docTools(this.context, this.docs),
    ];
  }

  /**
   * Runs a loop now. Its jobs wait for the lane, which waits for a running turn: so while the agent is busy
   * (a tool of that turn may be the caller) the loop is started and not awaited — awaiting it from inside
   * a turn would hold that turn until its tool timed out.
   */
  async runLoop(loop: LoopName): Promise<string> {
    if (!this.port().status().busy) return this.heartbeat.run(loop);
    this.heartbeat
      .run(loop)
      .then((summary) => this.opts.log.info(`memory: ${summary}`))
      .catch((err) => this.opts.log.warn(`memory: the ${loop} loop failed: ${errorMessage(err)}`));
    return `${loop}: started; the agent is busy, so it runs after the current turn (its result goes to the log)`;
  }

  async close(): Promise<void> {
    await this.forgetting.flush();
    try {
      await this.heartbeat.stop();
    } catch (err) {
      this.opts.log.warn(`memory: stopping the heartbeat failed: ${errorMessage(err)}`);
    }
    await this.index.close();
    await this.textlog.close();
  }

  private port(): KernelPort {
    if (!this.kernel) {
      throw new HomeAgentError({
        code: "memory_unavailable",
        message: "memory is not attached to the kernel yet: wait until homed has started",
      });
    }
    return this.kernel;
  }
}
