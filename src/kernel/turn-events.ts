/**
 * The context event of one turn. A user turn is ONE event of kind "user": its input is appended (durably)
 * before the model is asked, and the reply joins it when the turn is answered, or the input is marked
 * unanswered. Before the append, the window is pruned for the input — user inputs only, not self-tasks or
 * interrupts — to max_context_size − 1, so with the new event it never holds more than max_context_size.
 * The query is prepared once and reused for prune and the memory sections. Input channels and tools may
 * be marked NoMemory and may have a cleaner: the cleaned text is what memory computes with; the stored
 * text stays as it was. A cleaner may be async (a subprocess plugin's runs over RPC), so each is bounded:
 * one that does not settle in time costs its cleaning, never the turn. A transient input (the client keeps
 * its own history) gets its query but no prune and no event: it leaves nothing in the window.
 */
import type { ToolResult } from "@homeagent/sdk";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { withinTime } from "../util/time-limit.js";
import type { InputRegistry } from "./ports.js";
import type { ToolRegistry } from "./tools.js";
import type {
  AgentSettings,
  ContextEvent,
  ContextWindow,
  InputTask,
  MemoryContext,
  MutableStageContext,
  NewContextEvent,
  PreparedQuery,
  ToolResultRecord,
} from "./types.js";

export interface EventDeps {
  context: ContextWindow;
  inputs: InputRegistry;
  tools: ToolRegistry;
  settings: AgentSettings;
  memory?: MemoryContext;
  warn: (msg: string) => void;
  /** The turn took the place of this request's (InjectOptions.replaces): told once the window has it. */
  onReplaced?: (replaced: string) => void;
}

export interface OpenedTurn {
  /** The turn's event in the window; absent for a self-task and a transient input. */
  id?: number;
  event?: NewContextEvent;
  /** Null: no memory sections for this turn. */
  query: PreparedQuery | null;
}

/** Prepares the query, prunes (user input only) and appends the turn's input event (not for a transient one). */
export async function openTurn(deps: EventDeps, task: InputTask, ctx: MutableStageContext): Promise<OpenedTurn> {
  if (task.kind === "self") return { query: null };
  const channel = deps.inputs.get(ctx.channel);
  const { cleanInput, query, text } = await inputQuery(deps, task.requestId, ctx.channel, ctx.rawMessage);
  if (task.opts.transient) return { query };
  const replacing = task.opts.replaces === undefined ? undefined : replaceable(deps.context, task, ctx.channel);
  if (task.kind === "input") {
    // A replacing turn takes its predecessor's place: the window does not grow.
    const room = deps.settings.maxContextSize() - (replacing ? 0 : 1);
    await deps.context.prune(query ?? text, Math.max(0, room), replacing ? [replacing.id] : undefined);
  }
  const event: NewContextEvent = {
    ts: Date.now(),
    kind: "user",
    source: ctx.source,
    channel: ctx.channel,
    input: ctx.rawMessage,
    noMemory: ctx.noMemory || channel?.noMemory === true,
    ...(cleanInput !== undefined ? { cleanInput } : {}),
    // A user's turn (an interrupt answered on its own too): the channel's last, which may be asked again.
    requestId: task.requestId,
  };
  let id: number;
  if (replacing) {
    // In one transaction the earlier turn leaves (kept aside as a version, its distill candidate too).
    const swapped = await deps.context.replace(replacing.id, event);
    id = swapped.id;
    // Told first: the transcript's link is one small write, the raw log's rewrite may take a while.
    deps.onReplaced?.(replacing.requestId);
    await deps.memory?.superseded?.(swapped.replaced);
  } else id = await deps.context.append(event);
  return { id, event, query };
}

/**
 * The channel's last turn, when it is the one `replaces` names; refused ("invalid_argument") otherwise,
 * saying why. Checked when the input is queued and again when it runs (another input may have come between).
 */
export function replaceable(
  context: Pick<ContextWindow, "lastTurn">,
  task: Pick<InputTask, "kind" | "opts">,
  channel: string,
): { id: number; requestId: string } {
  const last = task.kind === "input" ? context.lastTurn(channel) : null;
  if (!last || last.requestId !== task.opts.replaces) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `only the last turn of channel "${channel}" still in the context window can be asked again or edited; send the message as a new one`,
    });
  }
  return last;
}

/**
 * An input as memory computes with it: the text after its channel's cleaner (`cleanInput` only when it
 * differs) and the query prepared from it; null when there is no memory or preparing failed.
 */
export async function inputQuery(
  deps: Pick<EventDeps, "inputs" | "memory" | "warn">,
  requestId: string,
  channelName: string,
  raw: string,
): Promise<{ cleanInput?: string; text: string; query: PreparedQuery | null }> {
  const cleanInput = await cleanWith(deps.inputs.get(channelName)?.cleaner, raw, (err) =>
    deps.warn(`the cleaner of input channel "${channelName}" failed, the raw input is used: ${errorMessage(err)}`),
  );
  const text = cleanInput ?? raw;
  let query: PreparedQuery | null = null;
  if (deps.memory) {
    try {
      query = await deps.memory.prepare(text);
    } catch (err) {
      deps.warn(`${requestId}: the query could not be prepared, no memory sections this turn: ${errorMessage(err)}`);
    }
  }
  return { ...(cleanInput !== undefined ? { cleanInput } : {}), text, query };
}

export interface TurnEnd {
  /** The reply as delivered. */
  final: string;
  error?: string;
  /** The turn was stopped (cancel, shutdown) rather than failing. */
  stopped: boolean;
  toolsUsed: string[];
  toolResults: ToolResult[];
}

/**
 * Writes the turn's end: the reply joins its event, or the input is marked unanswered; a self-task whose
 * reply was delivered to a channel becomes an `agent` event. Returns the event as memory should see it.
 */
export async function closeTurn(
  deps: EventDeps,
  task: InputTask,
  opened: OpenedTurn,
  end: TurnEnd,
  deliveredTo: string | null,
): Promise<ContextEvent | null> {
  if (opened.id === undefined || !opened.event) {
    if (task.kind !== "self" || end.error || !deliveredTo) return null;
    const records = await toolRecords(deps, end.toolResults);
    const event: NewContextEvent = {
      ts: Date.now(),
      kind: "agent",
      source: task.source,
      channel: deliveredTo,
      input: "",
      response: end.final,
      toolsUsed: end.toolsUsed,
      toolResults: records,
      // Delivered to the user, so remembered like anything else said in the conversation.
      noMemory: false,
    };
    const id = await deps.context.append(event);
    return complete(id, event);
  }
  if (end.error) {
    const reason = end.stopped ? "cancelled before a reply" : "the reply failed with an error";
    await deps.context.markUnanswered(opened.id, reason);
    return { ...complete(opened.id, opened.event), unanswered: reason };
  }
  const reply = {
    response: end.final,
    toolsUsed: end.toolsUsed,
    toolResults: await toolRecords(deps, end.toolResults),
  };
  await deps.context.respond(opened.id, reply);
  return { ...complete(opened.id, opened.event), ...reply };
}

function complete(id: number, e: NewContextEvent): ContextEvent {
  return { response: "", toolsUsed: [], toolResults: [], noMemory: false, ...e, id };
}

/** The turn's tool results as memory keeps them: NoMemory flags and cleaned text from each tool's definition. */
export async function toolRecords(
  deps: Pick<EventDeps, "tools" | "warn">,
  results: ToolResult[],
): Promise<ToolResultRecord[]> {
  let left = MEMORY_TOOL_CHARS;
  const kept = results.map((r) => {
    const content = keepWithin(r.content, left);
    left = Math.max(0, left - content.length);
    return { r, content, def: deps.tools.get(r.name)?.def };
  });
  // Concurrently: each cleaner is bounded, and ten slow ones in a row must not cost ten bounds.
  return Promise.all(
    kept.map(async ({ r, content, def }) => {
      const clean = await cleanWith(def?.cleaner, content, (err) =>
        deps.warn(`the cleaner of tool "${r.name}" failed, its raw output is kept: ${errorMessage(err)}`),
      );
      return {
        name: r.name,
        content,
        ...(def?.noMemory ? { noMemory: true } : {}),
        ...(clean !== undefined ? { clean } : {}),
      };
    }),
  );
}

/**
 * Tool output kept in memory per turn, in characters: the model read all of it during the turn, but a turn
 * of twenty 100k-character results would make one event larger than the window can hold.
 */
export const MEMORY_TOOL_CHARS = 200_000;

function keepWithin(text: string, room: number): string {
  if (text.length <= room) return text;
  return `${text.slice(0, room)}… [${text.length - room} characters not kept in memory]`;
}

/** How long a cleaner may take; after that the raw text is used (and the cleaner's late answer ignored). */
export const CLEANER_TIMEOUT_MS = 2000;

/** `cleaner(text)` when it differs from `text`; a cleaner that throws, returns no string or is too slow is reported. */
export async function cleanWith(
  cleaner: ((text: string) => string | Promise<string>) | undefined,
  text: string,
  onError: (err: unknown) => void,
  timeoutMs = CLEANER_TIMEOUT_MS,
): Promise<string | undefined> {
  if (!cleaner) return undefined;
  try {
    const out: unknown = await withinTime(
      (async () => cleaner(text))(),
      timeoutMs,
      () => new HomeAgentError({ code: "cleaner_timeout", message: `it did not finish within ${timeoutMs} ms` }),
    );
    if (typeof out !== "string") {
      throw new HomeAgentError({
        code: "cleaner_bad_result",
        message: `it returned ${out === null ? "null" : typeof out}, not a string; a cleaner returns the cleaned text`,
      });
    }
    return out === text ? undefined : out;
  } catch (err) {
    onError(err);
    return undefined;
  }
}
