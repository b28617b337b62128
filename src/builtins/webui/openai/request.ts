/**
 * Reads a `/v1/chat/completions` body into what the kernel takes: the last user message is the input, the
 * messages before it are the request's history (system and developer messages as system context). What
 * HomeAgent cannot honour is refused with a 400 that says why, never silently ignored: client-side tools
 * (the daemon runs its own, server-side), non-text content, more than one choice.
 */
import type { ContextMessage } from "@homeagent/sdk";
import { invalidRequest } from "./errors.js";

/** Messages in one request, the same bound the kernel puts on an input's history. */
export const MAX_MESSAGES = 256;

export interface CompletionRequest {
  /** The last user message's text: the turn's input. */
  input: string;
  /** Every earlier message, in order; system and developer messages have role "system". */
  history: ContextMessage[];
  stream: boolean;
}

const TOOLS_REFUSED =
  "HomeAgent runs its own tools on the server and cannot call tools the client defines; send the request without";

export function parseCompletionRequest(body: Record<string, unknown>): CompletionRequest {
  refuseClientTools(body);
  const stream = body.stream ?? false;
  if (typeof stream !== "boolean") throw invalidRequest("invalid_type", "stream must be true or false", "stream");
  checkStreamOptions(body.stream_options);
  if (body.n !== undefined && body.n !== null && body.n !== 1) {
    throw invalidRequest("unsupported_value", "n must be 1: HomeAgent gives one answer per request", "n");
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalidRequest("invalid_messages", "messages must be a non-empty array of chat messages", "messages");
  }
  if (messages.length > MAX_MESSAGES) {
    throw invalidRequest(
      "too_many_messages",
      `messages has ${messages.length} entries; at most ${MAX_MESSAGES} are taken — drop the oldest`,
      "messages",
    );
  }
  const parsed = messages.map((m, i) => parseMessage(m, i));
  const last = parsed[parsed.length - 1];
  if (last.role !== "user") {
    throw invalidRequest(
      "invalid_messages",
      `the last message must be the user's (it is a "${last.role}" message): HomeAgent answers the last user message`,
      "messages",
    );
  }
  if (!last.content.trim()) {
    throw invalidRequest("invalid_messages", "the last user message has no text", "messages");
  }
  // An assistant message without text (e.g. content null) carries nothing the model could read.
  const history = parsed.slice(0, -1).filter((m) => m.content !== "");
  return { input: last.content, history, stream };
}

/** Usage always ends a stream; a malformed `stream_options` is still a client bug worth naming. */
function checkStreamOptions(options: unknown): void {
  if (options === undefined || options === null) return;
  if (typeof options !== "object" || Array.isArray(options)) {
    throw invalidRequest(
      "invalid_type",
      'stream_options must be an object such as {"include_usage": true}',
      "stream_options",
    );
  }
  const include = (options as Record<string, unknown>).include_usage;
  if (include !== undefined && include !== null && typeof include !== "boolean") {
    throw invalidRequest(
      "invalid_type",
      "stream_options.include_usage must be true or false",
      "stream_options.include_usage",
    );
  }
}

function refuseClientTools(body: Record<string, unknown>): void {
  for (const field of ["tools", "functions"] as const) {
    const value = body[field];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    throw invalidRequest("tools_not_supported", `${TOOLS_REFUSED} "${field}"`, field);
  }
}

function parseMessage(raw: unknown, i: number): ContextMessage {
  const param = `messages[${i}]`;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw invalidRequest("invalid_messages", `${param} must be an object with role and content`, param);
  }
  const m = raw as Record<string, unknown>;
  switch (m.role) {
    case "tool":
    case "function":
      throw invalidRequest("tools_not_supported", `${TOOLS_REFUSED} "${m.role}" messages`, `${param}.role`);
    case "assistant":
      if (Array.isArray(m.tool_calls) ? m.tool_calls.length > 0 : m.function_call != null) {
        throw invalidRequest("tools_not_supported", `${TOOLS_REFUSED} assistant tool calls`, `${param}.tool_calls`);
      }
      return { role: "assistant", content: m.content == null ? "" : contentText(m.content, param) };
    case "user":
      return { role: "user", content: contentText(m.content, param) };
    case "system":
    case "developer":
      return { role: "system", content: contentText(m.content, param) };
    default:
      throw invalidRequest(
        "invalid_messages",
        `${param}.role must be "system", "developer", "user" or "assistant"`,
        `${param}.role`,
      );
  }
}

/** A string, or an array of `{type: "text", text}` parts (joined by a line break). */
function contentText(content: unknown, param: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) {
    throw invalidRequest(
      "invalid_messages",
      `${param}.content must be a string or an array of text parts`,
      `${param}.content`,
    );
  }
  return content
    .map((part, j) => {
      const p = part as { type?: unknown; text?: unknown } | null;
      if (p?.type === "text" && typeof p.text === "string") return p.text;
      if (p?.type === "text") {
        throw invalidRequest(
          "invalid_messages",
          `${param}.content[${j}].text must be a string`,
          `${param}.content[${j}]`,
        );
      }
      const type = typeof p?.type === "string" ? `"${p.type}"` : "without a type";
      throw invalidRequest(
        "unsupported_content",
        `${param}.content[${j}] is a part ${type}; HomeAgent takes only text parts ({"type": "text", "text": "…"}) — send files through the web UI's chat/file instead`,
        `${param}.content[${j}]`,
      );
    })
    .join("\n");
}
