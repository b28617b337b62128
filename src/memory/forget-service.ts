/**
 * One forget, everywhere the user's words may be: memory's layers (forget.ts), the data plugins keep for
 * themselves (their onForget handlers), the knowledge base (listed; removed only when asked), then a scrub of
 * the database files (scrub.ts). The user's `/memory forget`, `DELETE /api/v1/memory` and the model's
 * memory_purge / memory_delete_entity all come through here, so none of them forgets less than another.
 *
 * A forget asked for inside a turn (the model's tool) leaves that turn's own input alone and repeats itself
 * on the job lane once the turn has ended, which also catches its reply, its raw-log line and what plugins
 * saw of it.
 */
import type {
  ForgetCounts,
  ForgetReport,
  ForgetRequest,
  KnowledgeForgetReport,
  Logger,
  PluginForgetReport,
} from "@homeagent/sdk";
import type { Job } from "../kernel/jobs.js";
import { errorMessage } from "../util/errors.js";
import { checkTerms, type Forgetter, zeroCounts } from "./forget.js";
import type { Scrubber } from "./scrub.js";

/** What forget reaches outside memory.db and the raw log; the daemon fills it in once those exist. */
export interface ForgetReach {
  plugins(request: ForgetRequest): Promise<PluginForgetReport[]>;
  /** Items mentioning every term; removed when `remove`. `index`: the database to scrub after a removal. */
  knowledge(terms: readonly string[], remove: boolean): Promise<KnowledgeForgetReport & { index?: string }>;
}

export interface ForgetOptions {
  /** Also remove the matching knowledge items (they are always listed). */
  knowledge?: boolean;
}

export interface ForgetServiceDeps {
  forgetter: Forgetter;
  scrubber: Scrubber;
  /** memory.db: scrubbed after every confirmed forget. */
  memoryDb: string;
  runJob: (job: Job) => Promise<void>;
  log: Logger;
}

const NO_KNOWLEDGE: KnowledgeForgetReport = { matched: 0, paths: [], removed: 0 };

export class ForgetService {
  private reach: ForgetReach | null = null;

  constructor(private readonly deps: ForgetServiceDeps) {}

  /** The plugins and the knowledge base are there: forget reaches them from now on. */
  setReach(reach: ForgetReach): void {
    this.reach = reach;
  }

  /** What a forget of `query` would remove, everywhere; nothing changes. */
  async preview(query: string): Promise<ForgetReport> {
    const terms = checkTerms([query]);
    const matched = await this.deps.forgetter.match(query);
    const [plugins, { index: _, ...knowledge }] = await Promise.all([
      this.plugins(terms, false),
      this.knowledge(terms, false),
    ]);
    return {
      query,
      confirmed: false,
      matched: matched.counts,
      removed: zeroCounts(),
      samples: matched.samples,
      plugins,
      knowledge,
    };
  }

  /** Forgets `query` everywhere (see the file comment) and queues the scrub. */
  async forget(query: string, opts: ForgetOptions = {}): Promise<ForgetReport> {
    const preview = await this.preview(query);
    const terms = checkTerms([query]);
    const removed = await this.deps.forgetter.remove(terms, { keepPending: true });
    const [plugins, knowledge] = await Promise.all([
      this.plugins(terms, true),
      this.knowledge(terms, opts.knowledge === true),
    ]);
    this.repeatAfterTurn(terms);
    const scrub = this.deps.scrubber.request(
      knowledge.removed > 0 && knowledge.index ? [this.deps.memoryDb, knowledge.index] : [this.deps.memoryDb],
    );
    const { index: _, ...listed } = knowledge;
    return { ...preview, confirmed: true, removed, plugins, knowledge: listed, scrub };
  }

  /** The model's purge and delete: the same removal, without a report (the tools count on their own). */
  async forgetTerms(terms: readonly string[]): Promise<ForgetCounts> {
    const clean = checkTerms(terms);
    const counts = await this.deps.forgetter.remove(clean, { keepPending: true });
    await this.plugins(clean, true);
    this.repeatAfterTurn(clean);
    this.deps.scrubber.request([this.deps.memoryDb]);
    return counts;
  }

  private async plugins(terms: readonly string[], confirm: boolean): Promise<PluginForgetReport[]> {
    const reports = (await this.reach?.plugins({ terms: [...terms], confirm })) ?? [];
    for (const r of reports.filter((x) => x.error)) {
      this.deps.log.warn(`forget: plugin "${r.plugin}" could not forget its own data: ${r.error}`);
    }
    return reports;
  }

  private async knowledge(
    terms: readonly string[],
    remove: boolean,
  ): Promise<KnowledgeForgetReport & { index?: string }> {
    if (!this.reach) return { ...NO_KNOWLEDGE };
    try {
      return await this.reach.knowledge(terms, remove);
    } catch (err) {
      this.deps.log.warn(`forget: the knowledge base could not be searched: ${errorMessage(err)}`);
      return { ...NO_KNOWLEDGE };
    }
  }

  /**
   * Repeats the removal once the running turn (if any) has ended: the job lane runs after it. The scrub,
   * queued after this, then finds nothing left to remove.
   */
  private repeatAfterTurn(terms: string[]): void {
    const job: Job = {
      name: "forget",
      step: async () => {
        await this.deps.forgetter.remove(terms);
        await this.plugins(terms, true);
        return false;
      },
    };
    this.deps
      .runJob(job)
      .catch((err) => this.deps.log.warn(`memory: forgetting after the turn failed: ${errorMessage(err)}`));
  }
}
