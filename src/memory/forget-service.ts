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
import { PendingList } from "./pending-list.js";
import type { Scrubber } from "./scrub.js";

/** What forget reaches outside memory.db and the raw log; the daemon fills it in once those exist. */
export interface ForgetReach {
  plugins(request: ForgetRequest): Promise<PluginForgetReport[]>;
  /** Items mentioning every term; removed when `remove`. `index`: the database to scrub after a removal. */
  knowledge(terms: readonly string[], remove: boolean): Promise<KnowledgeForgetReport & { index?: string }>;
  /** Lines of the daemon's input history (waiter's) mentioning every term; removed when `remove`. */
  history(terms: readonly string[], remove: boolean): number;
  /**
   * What the daemon keeps of conversations outside memory — the inbox, approval records, transcripts —
   * mentioning every term; removed when `remove`.
   */
  kept(terms: readonly string[], remove: boolean): { inbox: number; approvals: number; transcripts: number };
  /** Other databases of the user's words (the transcripts'): scrubbed with memory.db. */
  databases: readonly string[];
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
  /** Where the ids of inputs a forget had to leave running are written (survives a crash). */
  heldFile: string;
  runJob: (job: Job) => Promise<void>;
  log: Logger;
}

const NO_KNOWLEDGE: KnowledgeForgetReport = { matched: 0, paths: [], removed: 0 };

export class ForgetService {
  private reach: ForgetReach | null = null;
  /** Forgets still to repeat after the turn that was running, each once. */
  private readonly repeats = new Set<string[]>();

  /** Inputs a forget had to leave running, by id, until its repeat has run (survives a crash). */
  private readonly held: PendingList<number>;

  constructor(private readonly deps: ForgetServiceDeps) {
    this.held = new PendingList(deps.heldFile, (v): v is number => Number.isSafeInteger(v), deps.log);
  }

  /** The plugins, the knowledge base and the input history are there: forget reaches them from now on. */
  setReach(reach: ForgetReach): void {
    this.reach = reach;
  }

  /** What a forget of `query` would remove, everywhere; nothing changes. */
  async preview(query: string): Promise<ForgetReport> {
    const terms = checkTerms([query]);
    const [report, plugins] = await Promise.all([this.memoryPreview(query, terms), this.plugins(terms, false)]);
    return { ...report, plugins };
  }

  /** Forgets `query` everywhere (see the file comment) and queues the scrub. */
  async forget(query: string, opts: ForgetOptions = {}): Promise<ForgetReport> {
    const terms = checkTerms([query]);
    // Without --knowledge the knowledge base is only listed: the preview's scan is the report.
    const listed = this.knowledge(terms, false);
    const preview = await this.memoryPreview(query, terms, listed);
    // A write now would wait for a running VACUUM's lock with the event loop stopped.
    await this.deps.scrubber.idle();
    const removed = await this.removeHere(terms);
    const [plugins, knowledge] = await Promise.all([
      this.plugins(terms, true),
      opts.knowledge ? this.knowledge(terms, true) : listed,
    ]);
    // The knowledge index may hold text edited out of a note since: with the knowledge base opted in, it is
    // scrubbed whatever was removed.
    const scrub = this.deps.scrubber.request(
      opts.knowledge && knowledge.index ? [...this.scrubbed(), knowledge.index] : this.scrubbed(),
    );
    const { index: _, ...report } = knowledge;
    return { ...preview, confirmed: true, removed, plugins, knowledge: report, scrub };
  }

  /**
   * The model's purge and delete: the same removal, without a report (the tools count on their own). The
   * plugins are asked without waiting: the tool runs inside a turn, which must not wait for them.
   */
  async forgetTerms(terms: readonly string[]): Promise<ForgetCounts> {
    const clean = checkTerms(terms);
    const counts = await this.removeHere(clean);
    void this.plugins(clean, true);
    this.deps.scrubber.request(this.scrubbed());
    return counts;
  }

  /** At start: inputs a forget left running before the daemon died are forgotten whole. */
  async recoverHeld(): Promise<void> {
    const ids = this.held.read();
    if (ids.length === 0) return;
    const n = await this.deps.forgetter.removeEvents(ids);
    this.deps.log.info(`memory: finished a forget interrupted by a restart (${n} turn(s) removed)`);
    this.held.write([]);
    this.deps.scrubber.request(this.scrubbed());
  }

  /** Stopping: the repeats the job lane will not run any more are run now, while memory is still open. */
  async flush(): Promise<void> {
    for (const terms of [...this.repeats]) {
      await this.repeat(terms).catch((err) =>
        this.deps.log.warn(`memory: forgetting after the turn failed: ${errorMessage(err)}`),
      );
    }
  }

  /** memory.db and the other databases of the user's words. */
  private scrubbed(): string[] {
    return [this.deps.memoryDb, ...(this.reach?.databases ?? [])];
  }

  /** Memory's own removal, the input history's, and the repeat for a turn that is running. */
  private async removeHere(terms: string[]): Promise<ForgetCounts> {
    const { counts, held } = await this.deps.forgetter.remove(terms, { keepPending: true });
    counts.history = this.reach?.history(terms, true) ?? 0;
    Object.assign(counts, this.reach?.kept(terms, true));
    if (held.length > 0) this.held.write([...new Set([...this.held.read(), ...held])]);
    this.repeatAfterTurn(terms);
    return counts;
  }

  private async memoryPreview(
    query: string,
    terms: string[],
    listed = this.knowledge(terms, false),
  ): Promise<ForgetReport> {
    const [matched, { index: _, ...knowledge }] = await Promise.all([this.deps.forgetter.match(query), listed]);
    matched.counts.history = this.reach?.history(terms, false) ?? 0;
    Object.assign(matched.counts, this.reach?.kept(terms, false));
    return {
      query,
      confirmed: false,
      matched: matched.counts,
      removed: zeroCounts(),
      samples: matched.samples,
      plugins: [],
      knowledge,
    };
  }

  private async plugins(terms: readonly string[], confirm: boolean): Promise<PluginForgetReport[]> {
    const reports = (await this.reach?.plugins({ terms: [...terms], confirm })) ?? [];
    for (const r of reports.filter((x) => x.error)) {
      // A handler's error may quote what it was asked to forget.
      this.deps.log.warn(`forget: plugin "${r.plugin}" could not forget its own data: ${redact(r.error ?? "", terms)}`);
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
      this.deps.log.warn(`forget: the knowledge base could not be searched: ${redact(errorMessage(err), terms)}`);
      return { ...NO_KNOWLEDGE };
    }
  }

  /**
   * Repeats the removal once the running turn (if any) has ended: the job lane runs after it. The scrub,
   * queued after this, then finds nothing left to remove.
   */
  private repeatAfterTurn(terms: string[]): void {
    this.repeats.add(terms);
    const job: Job = {
      name: "forget",
      step: async () => {
        await this.repeat(terms);
        return false;
      },
    };
    this.deps
      .runJob(job)
      .catch((err) => this.deps.log.warn(`memory: forgetting after the turn failed: ${errorMessage(err)}`));
  }

  private async repeat(terms: string[]): Promise<void> {
    if (!this.repeats.delete(terms)) return;
    await this.deps.forgetter.remove(terms);
    this.reach?.history(terms, true);
    this.reach?.kept(terms, true);
    if (this.repeats.size === 0) this.held.write([]);
    void this.plugins(terms, true);
  }
}

/** `text` with every occurrence of the terms cut out, for the log. */
function redact(text: string, terms: readonly string[]): string {
  let out = text;
  for (const t of terms) out = out.replace(new RegExp(t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi"), "…");
  return out;
}
