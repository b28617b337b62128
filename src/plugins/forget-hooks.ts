/**
 * The plugins' forget handlers (`sdk.onForget`): plugins keep user text of their own — the web UI its
 * uploads and replay ring, a chat bridge its message cache — that memory cannot see. A forget asks every
 * handler at once, each within its own deadline, and reports what each matched or removed. A handler that
 * fails or does not answer is reported with its error and never fails the forget: memory has already
 * forgotten, and the user is told which plugin may still hold the text.
 */
import type { ForgetHandler, ForgetRequest, PluginForgetReport } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { isObject } from "../util/object.js";
import { withinTime } from "../util/time-limit.js";
import { ForgetHandlerError } from "./errors.js";

/** How long one handler may take. */
export const FORGET_HANDLER_TIMEOUT_MS = 10_000;
const MAX_KINDS = 16;
const MAX_KIND_CHARS = 64;
const MAX_SAMPLES = 8;
const MAX_SAMPLE_CHARS = 200;

export class ForgetHooks {
  private readonly handlers = new Map<string, ForgetHandler>();

  constructor(private readonly timeoutMs = FORGET_HANDLER_TIMEOUT_MS) {}

  /** The plugin's handler; a later call replaces the earlier one. */
  set(plugin: string, handler: ForgetHandler): void {
    this.handlers.set(plugin, handler);
  }

  /** The plugin stopped: its handler goes with it. */
  remove(plugin: string): void {
    this.handlers.delete(plugin);
  }

  /** Asks every handler, in parallel; one report per plugin, by plugin name. */
  async run(request: ForgetRequest): Promise<PluginForgetReport[]> {
    const plugins = [...this.handlers.keys()].sort();
    return Promise.all(plugins.map((plugin) => this.ask(plugin, request)));
  }

  private async ask(plugin: string, request: ForgetRequest): Promise<PluginForgetReport> {
    const handler = this.handlers.get(plugin) as ForgetHandler;
    try {
      const work = Promise.resolve().then(() => handler({ terms: [...request.terms], confirm: request.confirm }));
      const answer = await withinTime(
        work,
        this.timeoutMs,
        () =>
          new ForgetHandlerError({
            code: "forget_handler_timeout",
            message: `no answer within ${this.timeoutMs} ms; the plugin may still hold the text: reload it and forget again`,
          }),
      );
      return { plugin, ...checkAnswer(answer) };
    } catch (err) {
      return { plugin, counts: {}, samples: [], error: errorMessage(err) };
    }
  }
}

/** The answer as a report: bounded, numbers made whole and non-negative; a malformed one is an error. */
function checkAnswer(answer: unknown): Omit<PluginForgetReport, "plugin"> {
  if (!isObject(answer) || !isObject(answer.counts)) throw badAnswer("the handler answered without {counts}");
  const counts: Record<string, number> = {};
  for (const [kind, n] of Object.entries(answer.counts).slice(0, MAX_KINDS)) {
    if (typeof n !== "number" || !Number.isFinite(n)) throw badAnswer(`counts.${kind.slice(0, 40)} is not a number`);
    counts[kind.slice(0, MAX_KIND_CHARS)] = Math.max(0, Math.floor(n));
  }
  const samples = Array.isArray(answer.samples)
    ? answer.samples
        .filter((s): s is string => typeof s === "string")
        .slice(0, MAX_SAMPLES)
        .map((s) => s.slice(0, MAX_SAMPLE_CHARS))
    : [];
  return { counts, samples };
}

function badAnswer(what: string): ForgetHandlerError {
  return new ForgetHandlerError({
    code: "forget_handler_answer",
    message: `${what}: a handler answers {counts: {kind: number}, samples?: [text]} (docs/plugin-protocol.md, forget.invoke)`,
  });
}
