/**
 * The web UI's synchronous chats (POST /api/v1/chat and chat/file with a message): each message becomes
 * one kernel input on channel "webui", answered within the chat timeout. A message sent again under the
 * same `client_msg_id` joins the first one's flight (or gets its cached reply) instead of being answered
 * twice. A flight is cancelled when every client waiting for it has gone, when it times out, or when the
 * user stops it (POST chat/interrupt without a message), so the kernel never works for nobody.
 */
import { type InputReply, type PluginSDK, SdkError } from "@homeagent/sdk";
import { ApiError, type WebDeps, type WebLimits } from "./context.js";
import { DEDUP_ENTRIES, Dedup } from "./dedup.js";
import { toApiError } from "./sdk-errors.js";

export const CHAT_CHANNEL = "webui";
/** The longest message a chat takes. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
export const MAX_CLIENT_MSG_ID = 64;
export const DEVICE_ID = { re: /^[A-Za-z0-9_.-]{1,64}$/, rule: "must be 1-64 letters, digits, '_', '.' or '-'" };

export interface ChatInput {
  source: string;
  text: string;
  clientMsgId?: string;
  /** What makes a repeat of this message the same message (default its text). */
  fingerprint?: string;
  /** Kept with the flight and handed to requests that join it (chat/file: the stored file). */
  meta?: unknown;
  /** The HTTP request's signal: aborted when the client disconnects. */
  signal?: AbortSignal;
  /** The LLM source to ask first, and whether a new topic starts (InjectOptions). */
  llmSource?: string;
  newTopic?: boolean;
  /** The request id of the last turn this message takes the place of (regenerate, edit). */
  replaces?: string;
}

export interface ChatOutcome {
  reply: InputReply;
  /** The reply belongs to an earlier request with the same client_msg_id. */
  deduplicated: boolean;
  /** The `meta` of the request that started the flight. */
  meta?: unknown;
}

type EndReason = "stopped" | "timeout" | "disconnected";
const END_CODE = { stopped: "chat_stopped", timeout: "chat_timeout", disconnected: "chat_cancelled" } as const;

interface Flight {
  controller: AbortController;
  /** Requests waiting for this reply. */
  waiters: number;
  settled: boolean;
  ended?: EndReason;
  result: Promise<InputReply>;
  /** The answer, once it came: a later request with the same id is given it. */
  reply?: InputReply;
  meta?: unknown;
}

/** The source of a chat input: "webui", or "webui/<device_id>" for a named device. */
export function chatSource(deviceId: string | undefined): string {
  return deviceId ? `${CHAT_CHANNEL}/${deviceId}` : CHAT_CHANNEL;
}

const runners = new WeakMap<PluginSDK, ChatRunner>();

/** The one runner of a plugin instance, shared by the chat and chat/file routes (one dedup, one stop). */
export function chatRunner(deps: WebDeps): ChatRunner {
  let runner = runners.get(deps.sdk);
  if (!runner) {
    runner = new ChatRunner(deps.sdk, deps.limits);
    runners.set(deps.sdk, runner);
  }
  return runner;
}

export class ChatRunner {
  private readonly running = new Set<Flight>();
  private readonly dedup = new Dedup<Flight>(DEDUP_ENTRIES, (flight) => !flight.settled);

  constructor(
    private readonly sdk: PluginSDK,
    private readonly limits: WebLimits,
  ) {}

  /**
   * Answers `input`: 504 chat_timeout past the chat timeout, 409 chat_stopped when stopped, 502 chat_failed
   * when the turn failed (the kernel's reason as the message), 503 when the kernel's queue is full.
   */
  async chat(input: ChatInput): Promise<ChatOutcome> {
    const key = input.clientMsgId === undefined ? undefined : `${input.source}\n${input.clientMsgId}`;
    const fingerprint = input.fingerprint ?? input.text;
    const joined = key === undefined ? undefined : this.dedup.get(key, fingerprint);
    const flight = joined ?? this.start(input, key, fingerprint);
    const reply = await this.wait(flight, input.signal);
    return { reply, deduplicated: joined !== undefined, meta: flight.meta };
  }

  /** Stops every chat in flight; returns how many. */
  stopAll(): number {
    const flights = [...this.running];
    for (const flight of flights) this.end(flight, "stopped", "stopped from the web UI");
    return flights.length;
  }

  /**
   * Answered messages kept for a repeat of their client_msg_id whose message or reply `mentions` accepts:
   * counted, and dropped when `remove` (forgetting). A repeat is then answered anew.
   */
  forget(mentions: (text: string) => boolean, remove: boolean): number {
    const text = (message: string, f: Flight) =>
      [message, f.reply?.content ?? "", f.reply?.reasoningContent ?? ""].join("\n");
    return this.dedup.drop((message, flight) => mentions(text(message, flight)), remove);
  }

  /** Chats in flight, and the requests waiting for them (more than one when ids were repeated). */
  load(): { inFlight: number; waiting: number } {
    let waiting = 0;
    for (const flight of this.running) waiting += flight.waiters;
    return { inFlight: this.running.size, waiting };
  }

  private start(input: ChatInput, key: string | undefined, fingerprint: string): Flight {
    const flight = { controller: new AbortController(), waiters: 0, settled: false, meta: input.meta } as Flight;
    flight.result = this.run(flight, input);
    this.running.add(flight);
    if (key !== undefined) {
      this.dedup.set(key, fingerprint, flight);
      // A failed message may be sent again under the same id, and then it is answered anew.
      flight.result.catch(() => this.dedup.delete(key, flight));
    }
    return flight;
  }

  private async run(flight: Flight, input: ChatInput): Promise<InputReply> {
    const timeoutMs = this.limits.chatTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.end(flight, "timeout", `no reply within ${timeoutMs} ms`);
        reject(
          new ApiError(504, "chat_timeout", `the agent did not answer within ${timeoutMs / 1000} s; it was stopped`),
        );
      }, timeoutMs);
      timer.unref();
    });
    try {
      const reply = await Promise.race([
        this.sdk.injectInputSync(input.source, CHAT_CHANNEL, input.text, {
          signal: flight.controller.signal,
          ...(input.llmSource ? { llmSource: input.llmSource } : {}),
          ...(input.newTopic ? { newTopic: true } : {}),
          ...(input.replaces ? { replaces: input.replaces } : {}),
        }),
        timeout,
      ]);
      if (reply.error !== undefined) throw this.failure(flight, reply.error);
      flight.reply = reply;
      return reply;
    } catch (err) {
      throw toApiError(err);
    } finally {
      clearTimeout(timer);
      flight.settled = true;
      this.running.delete(flight);
    }
  }

  private failure(flight: Flight, error: string): ApiError {
    if (flight.ended === "stopped") {
      return new ApiError(409, "chat_stopped", `the reply was stopped (POST /api/v1/chat/interrupt): ${error}`);
    }
    if (flight.ended === "disconnected") return new ApiError(409, "chat_cancelled", error);
    return new ApiError(502, "chat_failed", error);
  }

  private async wait(flight: Flight, signal: AbortSignal | undefined): Promise<InputReply> {
    if (flight.settled || !signal) return flight.result;
    if (signal.aborted) {
      if (flight.waiters === 0) this.end(flight, "disconnected", "cancelled: the web client disconnected");
      return flight.result;
    }
    flight.waiters += 1;
    let left = false;
    const onAbort = () => {
      left = true;
      flight.waiters -= 1;
      if (flight.waiters === 0) this.end(flight, "disconnected", "cancelled: the web client disconnected");
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await flight.result;
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (!left) flight.waiters -= 1;
    }
  }

  private end(flight: Flight, reason: EndReason, message: string): void {
    if (flight.settled || flight.ended) return;
    flight.ended = reason;
    flight.controller.abort(new SdkError({ code: END_CODE[reason], message }));
  }
}
