/**
 * A client's own conversation (InjectOptions.history, e.g. the `messages` of an OpenAI-style request). It
 * is checked when the input is queued, so a bad one is refused with what to fix before anything runs, and
 * copied, so a caller that reuses its array cannot change a queued turn.
 */
import type { ContextMessage } from "@homeagent/sdk";
import { HomeAgentError } from "../util/errors.js";
import { isObject } from "../util/object.js";

export const HISTORY_LIMITS = {
  messages: 256,
  /** UTF-8 bytes of all contents together. */
  bytes: 256 * 1024,
} as const;

const ROLES: ReadonlySet<string> = new Set(["system", "user", "assistant"]);

/** A checked copy of `history`; throws HomeAgentError "invalid_history" saying what to fix. */
export function checkHistory(history: unknown): ContextMessage[] {
  if (!Array.isArray(history))
    throw invalid(`history must be an array of {role, content} messages, got ${kindOf(history)}`);
  if (history.length > HISTORY_LIMITS.messages) {
    throw invalid(
      `history has ${history.length} messages, at most ${HISTORY_LIMITS.messages} are taken; send only the latest ones`,
    );
  }
  let bytes = 0;
  const out = history.map((m: unknown, i) => {
    if (!isObject(m)) throw invalid(`history[${i}] must be an object {role, content}, got ${kindOf(m)}`);
    if (typeof m.role !== "string" || !ROLES.has(m.role)) {
      throw invalid(
        `history[${i}].role must be "system", "user" or "assistant", got ${JSON.stringify(m.role) ?? "nothing"}`,
      );
    }
    if (typeof m.content !== "string") {
      throw invalid(`history[${i}].content must be a string (text only), got ${kindOf(m.content)}`);
    }
    bytes += Buffer.byteLength(m.content, "utf8");
    return { role: m.role as ContextMessage["role"], content: m.content };
  });
  if (bytes > HISTORY_LIMITS.bytes) {
    throw invalid(
      `history holds ${bytes} bytes of text, at most ${HISTORY_LIMITS.bytes} (256 KiB) are taken; drop or shorten the oldest messages`,
    );
  }
  return out;
}

function invalid(message: string): HomeAgentError {
  return new HomeAgentError({ code: "invalid_history", message });
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  return Array.isArray(v) ? "an array" : typeof v;
}
