/**
 * The OpenAI wire objects this endpoint answers with: `chat.completion` for a whole reply and the
 * `chat.completion.chunk` lines of a stream (role first, then text, then finish_reason, then usage with
 * `choices: []`, then `[DONE]`), so any OpenAI client reads them as it would OpenAI's own.
 */
import { randomBytes } from "node:crypto";
import type { InputReply, TokenUsage } from "@homeagent/sdk";
import type { OpenAIErrorBody } from "./errors.js";

/** The one model this endpoint offers; whatever model a request names is answered as this one. */
export const MODEL_ID = "homeagent";

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

/** The provider's figures for the whole turn (every LLM round); zeros when the provider reported none. */
export function toUsage(usage: TokenUsage | undefined): OpenAIUsage {
  if (!usage) return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.total,
    ...(usage.cacheReported ? { prompt_tokens_details: { cached_tokens: usage.cacheRead } } : {}),
    ...(usage.reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {}),
  };
}

export function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString("hex")}`;
}

/** The body of a non-streaming answer. */
export function completionBody(id: string, created: number, reply: InputReply): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: reply.content, refusal: null };
  if (reply.reasoningContent) message.reasoning_content = reply.reasoningContent;
  return {
    id,
    object: "chat.completion",
    created,
    model: MODEL_ID,
    choices: [{ index: 0, message, logprobs: null, finish_reason: "stop" }],
    usage: toUsage(reply.usage),
  };
}

/** The SSE lines of one streamed answer. */
export class ChunkLines {
  constructor(
    private readonly id: string,
    private readonly created: number,
  ) {}

  role(): string {
    return this.choice({ role: "assistant", content: "" }, null);
  }

  content(text: string): string {
    return text === "" ? "" : this.choice({ content: text }, null);
  }

  /** Reasoning travels as `delta.reasoning_content`, as DeepSeek-style clients expect. */
  reasoning(text: string): string {
    return text === "" ? "" : this.choice({ reasoning_content: text }, null);
  }

  finish(): string {
    return this.choice({}, "stop");
  }

  usage(usage: OpenAIUsage): string {
    return line({ ...this.head(), choices: [], usage });
  }

  error(body: OpenAIErrorBody): string {
    return line(body);
  }

  done(): string {
    return "data: [DONE]\n\n";
  }

  private choice(delta: Record<string, unknown>, finish: "stop" | null): string {
    return line({ ...this.head(), choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  }

  private head() {
    return { id: this.id, object: "chat.completion.chunk", created: this.created, model: MODEL_ID };
  }
}

function line(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}
