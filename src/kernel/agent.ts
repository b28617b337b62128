/**
 * Agent: wires the kernel together and offers the inject API. It owns no IO: the LLM, the context
 * window and the settings are handed in, and everything user-facing happens in plugins.
 */
import type { InjectOptions, InputReply, Logger } from "@homeagent/sdk";
import { EventBus } from "../events/bus.js";
import { OutputChannels } from "../io/output-channels.js";
import { stopMessage } from "./cancel.js";
import { InterruptQueue } from "./interrupts.js";
import { Scheduler } from "./scheduler.js";
import { StageHost } from "./stages.js";
import type { TurnControl } from "./tool-loop.js";
import { ToolRegistry } from "./tools.js";
import { runTurn, SELF_CHANNEL } from "./turn.js";
import type { AgentSettings, ContextWindow, InputTask, LLMClient, TaskKind } from "./types.js";

export interface AgentOptions {
  llm: LLMClient;
  context: ContextWindow;
  settings: AgentSettings;
  log: Logger;
  bus?: EventBus;
  maxQueue?: number;
}

export interface AgentStatus {
  busy: boolean;
  queued: number;
  processed: number;
  tools: number;
  outputChannels: string[];
}

export class Agent {
  readonly bus: EventBus;
  readonly tools = new ToolRegistry();
  readonly stages: StageHost;
  readonly outputs = new OutputChannels();
  private readonly scheduler: Scheduler;
  private readonly shutdown = new AbortController();
  private control: TurnControl | null = null;
  private seq = 0;

  constructor(private readonly opts: AgentOptions) {
    this.bus =
      opts.bus ?? new EventBus((err, ev) => opts.log.warn(`event subscriber failed on ${ev.type}: ${errText(err)}`));
    this.stages = new StageHost((plugin, stage, err) =>
      opts.log.warn(`stage handler of plugin "${plugin}" failed in ${stage}: ${errText(err)}`),
    );
    this.tools.addSource(this.outputs);
    this.scheduler = new Scheduler(
      (task) => this.run(task),
      (task, reason) => this.drop(task, reason),
      opts.maxQueue,
    );
  }

  start(): void {
    this.scheduler.start();
  }

  async stop(): Promise<void> {
    this.shutdown.abort(new Error(SHUTDOWN_MESSAGE));
    await this.scheduler.stop();
  }

  /** Queues an input; the reply goes to its output channel. Returns the request id. */
  injectInput(source: string, channel: string, text: string, opts: InjectOptions = {}): string {
    return this.enqueue("input", source, channel, text, opts).requestId;
  }

  /** Queues an input and resolves with its reply. */
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
   * inserts it before the next LLM call. With nothing running the interrupt is simply a new input.
   */
  injectInterrupt(source: string, channel: string, text: string): void {
    if (!text.trim()) throw new Error("an interrupt needs text");
    const control = this.control;
    if (!control) {
      this.enqueue("interrupt", source, channel, text, { noMemory: true });
      return;
    }
    control.interrupts.push({ source, channel, text });
    control.llmAbort?.abort(new Error(`interrupted by ${source}`));
    this.bus.publish("system", "kernel", { kind: "interrupt", source, channel });
  }

  /** A kernel self-task (consolidation and the like): its own lane, output to `_consolidation_`. */
  injectSelf(text: string): Promise<InputReply> {
    return new Promise((resolve, reject) => {
      try {
        this.enqueue("self", "kernel", SELF_CHANNEL, text, { noMemory: true, outputChannel: SELF_CHANNEL }, resolve);
      } catch (err) {
        reject(err);
      }
    });
  }

  status(): AgentStatus {
    return {
      busy: this.scheduler.busy,
      queued: this.scheduler.queued,
      processed: this.scheduler.stats.executed,
      tools: this.tools.all().length,
      outputChannels: this.outputs.names(),
    };
  }

  private enqueue(
    kind: TaskKind,
    source: string,
    channel: string,
    text: string,
    opts: InjectOptions,
    reply?: (r: InputReply) => void,
  ): InputTask {
    if (typeof text !== "string" || !text.trim()) throw new Error("empty input: nothing to process");
    if (opts.signal?.aborted) throw new Error(stopMessage(opts.signal.reason));
    const task: InputTask = { requestId: this.nextId(), kind, source, channel, text, opts, reply };
    this.scheduler.enqueue(task);
    opts.signal?.addEventListener(
      "abort",
      () => {
        if (this.scheduler.remove(task)) this.drop(task, stopMessage(opts.signal?.reason));
      },
      { once: true },
    );
    opts.onQueued?.(task.requestId);
    return task;
  }

  private async run(task: InputTask): Promise<void> {
    const stop = task.opts.signal ? AbortSignal.any([this.shutdown.signal, task.opts.signal]) : this.shutdown.signal;
    this.control = { stop, interrupts: new InterruptQueue(), llmAbort: null };
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
          warn: (msg) => this.opts.log.warn(msg),
        },
        task,
        this.control,
      );
      task.reply?.(reply);
    } catch (err) {
      const message = `internal error while processing: ${errText(err)}`;
      this.opts.log.error(`${task.requestId}: ${message}`);
      task.reply?.({ requestId: task.requestId, content: message, shortCircuited: false, error: message });
    } finally {
      const leftover = this.control.interrupts.drain();
      this.control = null;
      // Interrupts that arrived after the last LLM call still deserve an answer.
      if (!this.shutdown.signal.aborted) {
        for (const i of leftover) this.enqueue("interrupt", i.source, i.channel, i.text, { noMemory: true });
      }
    }
  }

  /** Answers a task that will not run, so no caller waits forever. */
  private drop(task: InputTask, reason: string): void {
    task.reply?.({ requestId: task.requestId, content: reason, shortCircuited: false, error: reason });
  }

  private nextId(): string {
    this.seq++;
    return `req_${Date.now().toString(36)}_${this.seq}`;
  }
}

const SHUTDOWN_MESSAGE = "the daemon is shutting down; this message was not answered";

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
