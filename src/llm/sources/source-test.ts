/**
 * `llm.test`: one tiny request to one source, so a user who has just typed a base URL and key learns at
 * once whether they work. It goes to that source alone (no fallback), past its cooldown, within a time
 * limit of its own, and leaves the source's failure and cooldown state as it was; a failing source is a
 * result (`ok: false` with the reason), never an exception. Only an unknown name throws.
 */
import type { LlmTestResult } from "@homeagent/sdk";
import { errorMessage, HomeAgentError } from "../../util/errors.js";
import type { ProviderManager } from "../manager.js";

export const TEST_TIMEOUT_MS = 20_000;
export const MAX_TEST_TIMEOUT_MS = 60_000;
export const TEST_PROMPT = "Reply with OK.";
/** Enough for "OK" from any model, thinking ones included, and cheap on a paid API. */
const TEST_MAX_TOKENS = 16;
const REPLY_CHARS = 200;

export interface SourceTestOptions {
  timeoutMs?: number;
  /** Applied to every error message (secrets the provider does not know of, e.g. other sources' keys). */
  redact?: (text: string) => string;
}

export async function testSource(
  llm: ProviderManager,
  name: string,
  opts: SourceTestOptions = {},
): Promise<LlmTestResult> {
  const timeoutMs = testTimeout(opts.timeoutMs);
  const status = llm.sources().find((s) => s.name === name);
  const model = status?.model ?? "";
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const res = await llm.callSource(name, controller.signal, (provider) =>
      provider.chat(
        {
          model: "",
          messages: [{ role: "user", content: TEST_PROMPT }],
          max_tokens: TEST_MAX_TOKENS,
          // As a turn asks by default; a model that thinks first could spend the few tokens on thinking.
          disable_thinking: true,
          stream: false,
        },
        { signal: controller.signal },
      ),
    );
    return { source: name, ok: true, latencyMs: latency(), model, reply: res.content.trim().slice(0, REPLY_CHARS) };
  } catch (err) {
    if (err instanceof HomeAgentError && err.code === "llm_unknown_source") throw err;
    const reason = controller.signal.aborted
      ? `no reply within ${timeoutMs} ms; the source may be down, overloaded or slow to load its model`
      : errorMessage(err);
    return { source: name, ok: false, latencyMs: latency(), model, error: (opts.redact ?? String)(reason) };
  } finally {
    clearTimeout(timer);
  }
}

function testTimeout(ms: number | undefined): number {
  if (ms === undefined) return TEST_TIMEOUT_MS;
  if (!Number.isInteger(ms) || ms < 1 || ms > MAX_TEST_TIMEOUT_MS) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TEST_TIMEOUT_MS}, not ${ms}`,
    });
  }
  return ms;
}
