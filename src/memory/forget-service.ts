/**
 * One forget, everywhere the user's words may be: memory's layers (forget.ts), the data plugins keep for
 * themselves (their onForget handlers), the knowledge base (listed; removed only when asked), then a scrub of
 * the database files (scrub.ts). The user's `/memory forget`, `DELETE /api/v1/memory` and the model's
 * memory_purge / memory_delete_entity all come through here, so none of them forgets less than another.
 *
 * A forget asked for while a turn runs (the model's tool, or the user in another window) leaves that turn's
 * input alone and repeats itself on the job lane once the turn has ended, which also catches its reply, its
 * raw-log line and what plugins saw of it. That repeat must not be lost: the ids of the inputs left alone are
 * written down (ids, never the text), so a daemon killed before the repeat forgets them whole at its next
 * start; a daemon that stops runs the repeats before memory closes.
 *
 * Plugins are asked once per forget and never hold the job lane: a handler that hangs costs the forget that
 * asked it at most its deadline, and costs turns nothing.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
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
import { writePrivateFile } from "../util/private-file.js";
import { checkTerms, type Forgetter, zeroCounts } from "./forget.js";
import type { Scrubber } from "./scrub.js";

/** What forget reaches outside memory.db and the raw log; the daemon fills it in once those exist. */
export interface ForgetReach {
  plugins(request: ForgetRequest): Promise<PluginForgetReport[]>;
  /** Items mentioning every term; removed when `remove`. `index`: the database to scrub after a removal. */
  knowledge(terms: readonly string[], remove: boolean): Promise<KnowledgeForgetReport & { index?: string }>;
  /** Lines of the daemon's input history (waiter's) mentioning every term; removed when `remove`. */
  history(terms: readonly string[], remove: boolean): number;
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

  constructor(private readonly deps: ForgetServiceDeps) {}

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
    const preview = await this.memoryPreview(query, terms);
    // A write now would wait for a running VACUUM's lock with the event loop stopped.
    await this.deps.scrubber.idle();
    const removed = await this.removeHere(terms);
    const [plugins, knowledge] = await Promise.all([
      this.plugins(terms, true),
      this.knowledge(terms, opts.knowledge === true),
    ]);
    // The knowledge index may hold text edited out of a note since: with the knowledge base opted in, it is
    // scrubbed whatever was removed.
    const scrub = this.deps.scrubber.request(
      opts.knowledge && knowledge.index ? [this.deps.memoryDb, knowledge.index] : [this.deps.memoryDb],
    );
    const { index: _, ...listed } = knowledge;
    return { ...preview, confirmed: true, removed, plugins, knowledge: listed, scrub };
  }

  /**
   * The model's purge and delete: the same removal, without a report (the tools count on their own). The
   * plugins are asked without waiting: the tool runs inside a turn, which must not wait for them.
   */
  async forgetTerms(terms: readonly string[]): Promise<ForgetCounts> {
    const clean = checkTerms(terms);
    const counts = await this.removeHere(clean);
    void this.plugins(clean, true);
    this.deps.scrubber.request([this.deps.memoryDb]);
    return counts;
  }

  /** At start: inputs a forget left running before the daemon died are forgotten whole. */
  async recoverHeld(): Promise<void> {
    const ids = this.readHeld();
    if (ids.length === 0) return;
    const n = await this.deps.forgetter.removeEvents(ids);
    this.deps.log.info(`memory: finished a forget interrupted by a restart (${n} turn(s) removed)`);
    this.writeHeld([]);
    this.deps.scrubber.request([this.deps.memoryDb]);
  }

  /** Stopping: the repeats the job lane will not run any more are run now, while memory is still open. */
  async flush(): Promise<void> {
    for (const terms of [...this.repeats]) {
      await this.repeat(terms).catch((err) =>
        this.deps.log.warn(`memory: forgetting after the turn failed: ${errorMessage(err)}`),
      );
    }
  }

  /** Memory's own removal, the input history's, and the repeat for a turn that is running. */
  private async removeHere(terms: string[]): Promise<ForgetCounts> {
    const held = this.deps.forgetter.heldBack(terms);
    const counts = await this.deps.forgetter.remove(terms, { keepPending: true });
    counts.history = this.reach?.history(terms, true) ?? 0;
    if (held.length > 0) this.writeHeld([...new Set([...this.readHeld(), ...held])]);
    this.repeatAfterTurn(terms);
    return counts;
  }

  private async memoryPreview(query: string, terms: string[]): Promise<ForgetReport> {
    const [matched, { index: _, ...knowledge }] = await Promise.all([
      this.deps.forgetter.match(query),
      this.knowledge(terms, false),
    ]);
    matched.counts.history = this.reach?.history(terms, false) ?? 0;
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
    if (this.repeats.size === 0) this.writeHeld([]);
    void this.plugins(terms, true);
  }

  private readHeld(): number[] {
    if (!existsSync(this.deps.heldFile)) return [];
    try {
      const ids: unknown = JSON.parse(readFileSync(this.deps.heldFile, "utf8"));
      if (Array.isArray(ids)) return ids.filter((id): id is number => Number.isSafeInteger(id));
    } catch {
      // Unreadable: nothing can be recovered from it; it is replaced at the next forget.
    }
    return [];
  }

  private writeHeld(ids: number[]): void {
    try {
      if (ids.length === 0) rmSync(this.deps.heldFile, { force: true });
      else writePrivateFile(this.deps.heldFile, JSON.stringify(ids));
    } catch (err) {
      this.deps.log.warn(`memory: cannot write ${this.deps.heldFile}: ${errorMessage(err)}`);
    }
  }
}

/** `text` with every occurrence of the terms cut out, for the log. */
function redact(text: string, terms: readonly string[]): string {
  let out = text;
  for (const t of terms) out = out.replace(new RegExp(t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi"), "…");
  return out;
}
