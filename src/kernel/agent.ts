/**
 * Agent: wires the kernel together and offers the inject API. It owns no IO: the LLM, the context
 * window, memory and the settings are handed in, and everything user-facing happens in plugins.
 */
import type {
  ContextPreview,
  ContextReport,
  InjectOptions,
  InputReply,
  Logger,
  ToolDef,
  ToolHandler,
} from "@homeagent/sdk";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { AbortWatch, linkAbort, SHUTDOWN_MESSAGE, stopMessage } from "./cancel.js";
import { checkHistory } from "./history.js";
import { InterruptQueue } from "./interrupts.js";
import { type Job, JobLane } from "./jobs.js";
import type { BusStats, InputRegistry, KernelBus, NameGuard, OutputRegistry } from "./ports.js";
import { previewContext } from "./preview.js";
import { Scheduler } from "./scheduler.js";
import { StageHost } from "./stages.js";
import type { TurnControl } from "./tool-loop.js";
import { plainWords, TOOL_SEARCH_DEF, type ToolOffer, type Words } from "./tool-search.js";
import { type CoreOwner, KERNEL_OWNER, ToolRegistry } from "./tools.js";
import { runTurn, SELF_CHANNEL } from "./turn.js";
import { replaceable } from "./turn-events.js";
import { chooseVersion } from "./turn-versions.js";
import type { AgentSettings, ContextWindow, InputTask, LLMClient, MemoryContext, TaskKind } from "./types.js";

export interface AgentOptions {
  llm: LLMClient;
  context: ContextWindow;
  settings: AgentSettings;
  log: Logger;
  /** Long-term memory's prompt sections and end-of-turn hook; without it the prompt has no memory sections. */
  memory?: MemoryContext;
  /** The event bus (src/events/ EventBus), built by the caller. */
  bus: KernelBus;
  /**
   * The channel registries (src/io/): `outputs` is made with the guard that checks a channel's tool names
   * against every tool name in use.
   */
  channels: { outputs: (guard: NameGuard) => OutputRegistry; inputs: InputRegistry };
  maxQueue?: number;
  /** Jobs waiting or running at most (default 64). */
  maxJobs?: number;
  /** Told once per turn the LLM answered, with the source of its last reply (the daemon's usage meter). */
  onAnswered?: (llmSource: string) => void;
  /** Words of a text for tool_search (the daemon passes the search engine's tokenizer); default plainWords. */
  words?: Words;
}

export interface SelfTaskOptions {
  /** The only tools the task may use; any other call is refused. Default: none. */
  tools?: string[];
  /** Deliver the reply to this output channel too (it is then an `agent` event); default: nowhere. */
  outputChannel?: string;
  /** Rounds of tool calls it may take; default (and at most) `core.agent.max_tool_turns`. */
  maxToolTurns?: number;
  /** Ends the task (queued: dropped; running: stopped), e.g. at its caller's deadline. */
  signal?: AbortSignal;
}

export interface AgentStatus {
  busy: boolean;
  queued: number;
  processed: number;
  tools: number;
  outputChannels: string[];
  /** Jobs waiting or running. */
  jobs: number;
  events: BusStats;
}

interface Running {
  task: InputTask;
  control: TurnControl;
  /** Ends this task alone: a self-task that an interrupt displaces. */
  cancel?: AbortController;
}

export class Agent {
  readonly bus: KernelBus;
  readonly tools = new ToolRegistry();
  readonly stages: StageHost;
  readonly outputs: OutputRegistry;
  readonly inputs: InputRegistry;
  private readonly words: Words;
  private readonly scheduler: Scheduler;
  private readonly shutdown = new AbortController();
  /** Drops a queued input whose caller's signal fired; one listener per signal, removed with its last input. */
  private readonly cancels = new AbortWatch<InputTask>((task, signal) => {
    if (this.scheduler.remove(task)) this.drop(task, stopMessage(signal.reason));
  });
  private running: Running | null = null;
  private seq = 0;
  private previews = 0;
  /** The running turn's tool offer, for tool_search. */
  private readonly offers = new Map<string, ToolOffer>();
  private last: ContextReport | null = null;
  /** Once-per-run notices already given. */
  private readonly noticed = new Set<string>();

  constructor(private readonly opts: AgentOptions) {
    const { log, settings } = opts;
    this.bus = opts.bus;
    this.outputs = opts.channels.outputs((names, claimant) => this.tools.assertFree(names, claimant));
    this.inputs = opts.channels.inputs;
    this.words = opts.words ?? plainWords;
    this.stages = new StageHost({
      timeoutMs: () => settings.stageTimeoutMs(),
      toolOwner: (name) => this.tools.get(name)?.owner,
      onError: (plugin, stage, err) =>
        log.warn(`stage handler of plugin "${plugin}" failed in ${stage}: ${errorMessage(err)}`),
      onRun: (report) => this.bus.publish("stage", "kernel", { ...report }),
      onLateWrite: (plugin, stage, field) =>
        log.warn(
          `stage handler of plugin "${plugin}" wrote ctx.${field} after its ${stage} run was over (it had returned, timed out or been stopped); that write and any later ones were ignored — await all the work before returning, within core.plugin.stage_timeout, and stop at ctx.signal`,
        ),
      onConflict: (field, winner, loser, stage) =>
        log.warn(
          `stage handlers of plugins "${loser}" and "${winner}" both changed ctx.${field} in ${stage}, to different values; "${winner}"'s change was kept and "${loser}"'s dropped — let only one of them own that field`,
        ),
      onRefusedOp: (plugin, stage, why) =>
        log.warn(
          `stage handler of plugin "${plugin}" in ${stage}: ${why}; that operation was dropped and the rest of the patch applied — declare "tool_calls_any" in the plugin's capabilities if it must change other tools' calls or results`,
        ),
      onSuspend: ({ plugin, stage, reason }) => {
        log.warn(`plugin "${plugin}" is degraded: ${reason}`);
        this.bus.publish("system", "kernel", { kind: "plugin_degraded", plugin, stage, reason });
      },
    });
    this.tools.addSource(this.outputs);
    this.tools.register(KERNEL_OWNER, { ...TOOL_SEARCH_DEF, noMemory: true }, (args, ctx) => {
      const offer = this.offers.get(ctx.requestId);
      if (!offer) return "error: tool_search only works inside a turn";
      return offer.search(String(args.query ?? ""));
    });
    this.scheduler = new Scheduler(
      (task) => this.run(task),
      (task, reason) => this.drop(task, reason),
      opts.maxQueue,
      new JobLane({ signal: this.shutdown.signal, warn: (msg) => log.warn(msg), max: opts.maxJobs }),
    );
  }

  start(): void {
    this.scheduler.start();
  }

  async stop(): Promise<void> {
    this.shutdown.abort(new HomeAgentError({ code: "shutting_down", message: SHUTDOWN_MESSAGE }));
    await this.scheduler.stop();
  }

  /**
   * Queues an input; the reply goes to its output channel. Returns the request id. Throws
   * "invalid_history" for a history over its limits (history.ts), before anything is queued.
   */
  injectInput(source: string, channel: string, text: string, opts: InjectOptions = {}): string {
    return this.enqueue("input", source, channel, text, opts).requestId;
  }

  /** Queues an input and resolves with its reply; rejects as injectInput throws. */
  injectInputSync(source: string, channel: string, text: string, opts: InjectOptions = {}): Promise<InputReply> {
    return new Promise((resolve, reject) => {
      try {
        this.enqueue("input", source, channel, text, opts, resolve);
      } catch (err) {
        reject(err);
      }
    });
  }

  /**
   * Interrupts the running turn: cancels its LLM call in flight and hands the text to the loop, which
   * inserts it before the next LLM call. A self-task has no user to tell, so it is cancelled instead and
   * the interrupt runs next as an input of its own (the reply goes to the interrupter's channel). With
   * nothing running the interrupt is simply a new input.
   */
  injectInterrupt(source: string, channel: string, text: string): void {
    if (!text.trim()) throw new HomeAgentError({ code: "input_empty", message: "an interrupt needs text" });
    const running = this.running;
    if (!running || running.task.kind === "self") {
      this.enqueue("interrupt", source, channel, text, { noMemory: true });
      running?.cancel?.abort(
        new HomeAgentError({
          code: "self_task_interrupted",
          message: `interrupted by user input (from ${source}); run the task again later`,
        }),
      );
    } else {
      running.control.interrupts.push({ source, channel, text });
      running.control.llmAbort?.abort(new HomeAgentError({ code: "interrupted", message: `interrupted by ${source}` }));
    }
    if (running) {
      // Said inside the running turn: its text and its turn, so the transcript keeps what the user said.
      const inside = running.task.kind === "self" ? {} : { requestId: running.task.requestId, text };
      this.bus.publish("system", "kernel", { kind: "interrupt", source, channel, ...inside });
    }
  }

  /**
   * A kernel self-task (consolidation and the like): an LLM turn in its own lane, offered only the tools
   * of its allowlist. It does not prune the context and is kept out of long-term memory; its reply goes to
   * `_consolidation_` (nowhere) unless it names an output channel.
   */
  injectSelf(text: string, opts: SelfTaskOptions = {}): Promise<InputReply> {
    return new Promise((resolve, reject) => {
      try {
        const outputChannel = opts.outputChannel ?? SELF_CHANNEL;
        const tools = [...(opts.tools ?? [])];
        const given = { noMemory: true, outputChannel, ...(opts.signal ? { signal: opts.signal } : {}) };
        const task = this.enqueue("self", "kernel", SELF_CHANNEL, text, given, resolve, tools);
        if (opts.maxToolTurns !== undefined) task.maxToolTurns = opts.maxToolTurns;
      } catch (err) {
        reject(err);
      }
    });
  }

  /**
   * Queues non-LLM work (jobs.ts): its steps run one at a time between turns. Resolves when the job is
   * done; rejects with its error, when the job queue is full (queue_full), or when the daemon stops.
   */
  enqueueJob(job: Job): Promise<void> {
    return this.scheduler.enqueueJob(job);
  }

  /**
   * Makes `requestId`, an earlier version of `channel`'s last turn (asked again or edited), the one in the
   * context window again (turn-versions.ts). Runs between turns, as a job; rejects ("invalid_argument")
   * when it is not a version of that turn.
   */
  chooseVersion(channel: string, requestId: string): Promise<void> {
    const { context, memory } = this.opts;
    return this.enqueueJob({
      name: "choose a version of a turn",
      step: async () => {
        await chooseVersion({ context, memory }, channel, requestId);
        return false;
      },
    });
  }

  /** What the last composed LLM request held, section by section; null before the first. */
  lastContext(): ContextReport | null {
    return this.last;
  }

  /**
   * What a user message `query` on channel "webui" would send the model now, section by section with each
   * section's text; nothing runs and nothing is recorded (preview.ts). A query over 64 KiB is refused
   * ("invalid_argument").
   */
  previewContext(query: string): Promise<ContextPreview> {
    const { llm, settings, memory, context, log } = this.opts;
    const deps = {
      llm,
      settings,
      memory,
      context,
      words: this.words,
      tools: this.tools,
      inputs: this.inputs,
      outputs: this.outputs,
    };
    const id = `preview_${Date.now().toString(36)}_${++this.previews}`;
    return previewContext({ ...deps, warn: (msg) => log.warn(msg) }, query, id);
  }
  /**
   * Registers a subsystem's own tools (memory's, the knowledge base's, the LLM sources'): their names are
   * reserved from then on, as tool_search's is, and a plugin asking for one is refused.
   */
  registerCoreTools(owner: CoreOwner, tools: ReadonlyArray<{ def: ToolDef; handler: ToolHandler }>): void {
    for (const tool of tools) this.tools.register(owner, tool.def, tool.handler);
  }

  /** Reserves the names of core tools that register later (after the plugins have started). */
  reserveToolNames(names: readonly string[]): void {
    this.tools.reserve([...names]);
  }

  status(): AgentStatus {
    return {
      busy: this.scheduler.busy,
      queued: this.scheduler.queued,
      processed: this.scheduler.stats.executed,
      tools: this.tools.all().length,
      outputChannels: this.outputs.names(),
      jobs: this.scheduler.jobCount,
      events: this.bus.stats(),
    };
  }

  private enqueue(
    kind: TaskKind,
    source: string,
    channel: string,
    text: string,
    given: InjectOptions,
    reply?: (r: InputReply) => void,
    tools?: string[],
  ): InputTask {
    if (typeof text !== "string" || !text.trim())
      throw new HomeAgentError({ code: "input_empty", message: "empty input: nothing to process" });
    const opts = given.history === undefined ? given : { ...given, history: checkHistory(given.history) };
    if (opts.llmSource !== undefined && (typeof opts.llmSource !== "string" || opts.llmSource.length > 64)) {
      throw new HomeAgentError({ code: "invalid_argument", message: "llmSource is the name of an LLM source" });
    }
    if (opts.replaces !== undefined) {
      if (typeof opts.replaces !== "string" || opts.replaces.length > 64) {
        throw new HomeAgentError({ code: "invalid_argument", message: "replaces is the request id of a turn" });
      }
      // Refused now, before anything is recorded; checked again when it runs.
      replaceable(this.opts.context, { kind, opts }, channel);
    }
    const signal = opts.signal;
    if (signal?.aborted) throw new HomeAgentError({ code: "input_cancelled", message: stopMessage(signal.reason) });
    const task: InputTask = {
      requestId: this.nextId(),
      kind,
      source,
      channel,
      text,
      opts,
      reply,
      ...(tools ? { tools } : {}),
      // One connection's signal serves all its messages: nothing of this input may stay attached to it.
      release: () => {
        if (signal) this.cancels.delete(signal, task);
      },
    };
    this.scheduler.enqueue(task);
    if (signal) this.cancels.add(signal, task);
    opts.onQueued?.(task.requestId);
    return task;
  }

  private async run(task: InputTask): Promise<void> {
    // A turn ends on shutdown; one with a caller's signal, or a self-task, can also end alone. An
    // AbortController costs ~9 µs in Node 20, so plain inputs share the shutdown signal.
    const cancel = task.opts.signal || task.kind === "self" ? new AbortController() : undefined;
    const unlink = cancel ? linkAbort(cancel, [this.shutdown.signal, task.opts.signal]) : () => {};
    const stop = cancel?.signal ?? this.shutdown.signal;
    const control: TurnControl = {
      stop,
      interrupts: new InterruptQueue(),
      llmAbort: null,
      ...(task.opts.llmSource ? { llmSource: task.opts.llmSource } : {}),
      ...(task.maxToolTurns !== undefined ? { maxToolTurns: task.maxToolTurns } : {}),
    };
    this.running = { task, control, cancel };
    try {
      const reply = await runTurn(
        {
          llm: this.opts.llm,
          tools: this.tools,
          stages: this.stages,
          bus: this.bus,
          settings: this.opts.settings,
          context: this.opts.context,
          outputs: this.outputs,
          inputs: this.inputs,
          memory: this.opts.memory,
          warn: (msg) => this.opts.log.warn(msg),
          notice: (key, message, event) => this.notice(key, message, event),
          offers: this.offers,
          words: this.words,
          onComposed: (report) => {
            this.last = report;
          },
          onAnswered: this.opts.onAnswered,
        },
        task,
        control,
      );
      task.reply?.(reply);
    } catch (err) {
      const message = `internal error while processing: ${errorMessage(err)}`;
      this.opts.log.error(`${task.requestId}: ${message}`);
      // The turn's end is published all the same: whoever shows or records it must not wait for it forever.
      this.bus.publish("agent_output", "kernel", {
        requestId: task.requestId,
        source: task.source,
        channel: task.opts.outputChannel ?? task.channel,
        content: message,
        error: message,
      });
      task.reply?.({ requestId: task.requestId, content: message, shortCircuited: false, error: message });
    } finally {
      unlink();
      task.release();
      this.running = null;
      // Interrupts that arrived after the last LLM call still deserve an answer.
      if (!this.shutdown.signal.aborted) {
        for (const i of control.interrupts.drain()) {
          try {
            this.enqueue("interrupt", i.source, i.channel, i.text, { noMemory: true });
          } catch (err) {
            this.opts.log.warn(`interrupt from ${i.source} dropped: ${errorMessage(err)}`);
          }
        }
      }
    }
  }

  /** Logs (and publishes) `message` the first time `key` comes up in this run. */
  private notice(key: string, message: string, event?: Record<string, unknown>): void {
    if (this.noticed.has(key)) return;
    this.noticed.add(key);
    this.opts.log.warn(message);
    if (event) this.bus.publish("system", "kernel", event);
  }

  /** Answers a task that will not run, so no caller waits forever. */
  private drop(task: InputTask, reason: string): void {
    task.release();
    task.reply?.({ requestId: task.requestId, content: reason, shortCircuited: false, error: reason });
  }

  private nextId(): string {
    this.seq++;
    return `req_${Date.now().toString(36)}_${this.seq}`;
  }
}
