/**
 * MemoryContext: what the kernel asks of long-term memory each turn. The query is prepared once (tokens and
 * vector) and reused by prune and both memory sections; the memory index comes from the graph (Indexer),
 * related memory from archived turns and documents, verbatim and dated. At the end of a turn the raw text
 * log and the distill pipeline get what was said.
 */
import type { ContextEvent, MemoryBudgets, MemoryContext, PreparedQuery } from "../kernel/types.js";
import type { SearchIndex } from "../retrieval/search.js";
import { errorMessage } from "../util/errors.js";
import type { DistillPipeline } from "./distill/pipeline.js";
import type { DocStore } from "./documents/documents.js";
import { relatedMemory } from "./documents/related.js";
import type { Indexer } from "./graph/indexer.js";
import type { TextLog } from "./textlog.js";

export interface MemoryContextDeps {
  index: SearchIndex;
  indexer: Indexer;
  docs: DocStore;
  textlog: TextLog;
  pipeline: DistillPipeline;
  /** The user's IANA zone, read per turn. */
  zone: () => string;
  warn: (msg: string) => void;
  now?: () => number;
}

export class LayeredMemoryContext implements MemoryContext {
  constructor(private readonly deps: MemoryContextDeps) {}

  prepare(text: string): Promise<PreparedQuery> {
    return this.deps.index.prepare(text);
  }

  async build(
    q: PreparedQuery,
    budgets: MemoryBudgets,
    opts: { requestId: string; exclude: Set<number> },
  ): Promise<{ index: string; related: string }> {
    const { index, indexer, docs, zone } = this.deps;
    const prepared = q as Awaited<ReturnType<SearchIndex["prepare"]>>;
    const exclude = new Set([...opts.exclude].map((id) => `ctx:${id}`));
    const [graph, related] = await Promise.all([
      indexer.buildContext(prepared, budgets.index, opts.requestId),
      relatedMemory({ index, docs }, prepared, budgets.related, {
        exclude,
        zone: zone(),
        now: (this.deps.now ?? Date.now)(),
      }),
    ]);
    return { index: graph, related };
  }

  markRecalled(requestId: string, names: string[]): void {
    this.deps.indexer.markRecalled(requestId, names);
  }

  async superseded(e: ContextEvent): Promise<void> {
    // Its distill candidate waits aside already (the window's swap did it, in its transaction).
    if (e.noMemory) return;
    try {
      // A line cut to fit the log's line limit holds the start of its input.
      await this.deps.textlog.purge(
        (line) =>
          line.ts === e.ts && (line.input === e.input || (line.truncated === true && e.input.startsWith(line.input))),
      );
    } catch (err) {
      this.deps.warn(`text log: the replaced turn's line could not be removed: ${errorMessage(err)}`);
    }
  }

  async restored(e: ContextEvent): Promise<void> {
    if (!e.noMemory) this.logTurn(e);
  }

  async turnDone(requestId: string, e: ContextEvent | null): Promise<void> {
    this.deps.indexer.endTurn(requestId);
    if (!e || e.noMemory) return;
    this.logTurn(e);
    if (e.kind === "user") this.deps.pipeline.offer({ ts: e.ts, source: e.source, input: e.input });
  }

  private logTurn(e: ContextEvent): void {
    try {
      this.deps.textlog.append({
        ts: e.ts,
        source: e.source,
        input: e.input,
        response: e.response,
        toolsUsed: e.toolsUsed,
      });
    } catch (err) {
      this.deps.warn(`text log: ${errorMessage(err)}`);
    }
  }
}
