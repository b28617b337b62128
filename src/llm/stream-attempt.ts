/**
 * One streamed attempt on one source, and what it does when the stream breaks: before any text or tool call
 * arrived it asks again on the same source as a plain chat; after content it keeps what arrived (with
 * finish_reason "interrupted", plus a note when a time limit stopped it) rather than asking again and
 * repeating text the user has already seen. Listeners are told (`onRestart`) whenever chunks they were
 * given become void because the reply starts over — a plain-chat fallback, a retry, the next source.
 */
import type { Logger } from "@homeagent/sdk";
import type { CompletionRequest, CompletionResponse, StreamChunk } from "../kernel/llm-spec.js";
import { errorMessage } from "../util/errors.js";
import {
  ADAPTER_REQUEST_FAILED,
  type CallOptions,
  type Provider,
  ProviderError,
  ProviderTimeoutError,
} from "./provider.js";
import { StreamAccumulator } from "./stream-accumulator.js";

export interface StreamOptions extends CallOptions {
  /** Every chunk as it arrives (content and reasoning deltas for the UI). */
  onChunk?: (chunk: StreamChunk) => void;
  /**
   * The chunks delivered so far are void: the reply starts again (a plain chat after a broken stream, or
   * another attempt or source). Called only when something had been delivered.
   */
  onRestart?: () => void;
  /** The source to ask first for this call (an input's `llmSource`). */
  source?: string;
}

/** The attempts of one ProviderManager.stream() call, which share whether anything was delivered yet. */
export class StreamAttempts {
  private delivered = false;

  constructor(
    private readonly opts: StreamOptions,
    private readonly log: Logger | undefined,
  ) {}

  /** One attempt on `provider`; the previous attempt's chunks (if any) are voided first. */
  async next(provider: Provider, req: CompletionRequest): Promise<CompletionResponse> {
    this.restart();
    const { signal } = this.opts;
    const acc = new StreamAccumulator();
    let cut = false;
    try {
      for await (const chunk of provider.chatStream({ ...req, stream: true }, { signal })) {
        acc.add(chunk);
        cut ||= chunk.cut === true;
        this.deliver(chunk);
      }
      return cut ? { ...acc.result(), cut: true } : acc.result();
    } catch (err) {
      // An HTTP error answers for the source as a whole; asking again without streaming would only repeat
      // it, and so would a request the adapter could not even build.
      if (isAbort(err, signal) || (err instanceof ProviderError && err.status !== undefined)) throw err;
      if (err instanceof ProviderError && err.code === ADAPTER_REQUEST_FAILED) throw err;
      if (acc.hasContent()) {
        this.log?.warn(
          `LLM source ${provider.name}: stream broke after content, keeping the partial reply: ${errorMessage(err)}`,
        );
        if (err instanceof ProviderTimeoutError) {
          // The reply ends here because of a limit the user can change: say so in the reply itself.
          const note = cutNote(err);
          acc.add(note);
          this.deliver(note);
        }
        return acc.partial();
      }
      // A hung server would hang the plain request just as long.
      if (isTimeout(err)) throw err;
      this.log?.warn(`LLM source ${provider.name}: stream failed (${errorMessage(err)}), trying without streaming`);
      const response = await provider.chat({ ...req, stream: false }, { signal });
      this.restart();
      // Listeners build the visible reply from chunks; the whole answer arrives as one.
      this.deliver({
        content: response.content,
        reasoning_content: response.reasoning_content,
        done: true,
        finish_reason: response.finish_reason,
        usage: response.token_usage,
        tool_calls: [],
      });
      return response;
    }
  }

  private deliver(chunk: StreamChunk): void {
    this.delivered = true;
    this.opts.onChunk?.(chunk);
  }

  private restart(): void {
    if (!this.delivered) return;
    this.delivered = false;
    this.opts.onRestart?.();
  }
}

export function isAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  return Boolean(signal?.aborted) || (err instanceof ProviderError && err.kind === "aborted");
}

/** The provider gave up waiting for the server (no first byte, no content, none mid-reply, or the call deadline). */
export function isTimeout(err: unknown): boolean {
  return err instanceof ProviderTimeoutError;
}

function cutNote(err: ProviderTimeoutError): StreamChunk {
  return {
    content: `\n\n[reply cut: ${err.message}]`,
    reasoning_content: "",
    done: true,
    usage: null,
    tool_calls: [],
  };
}
