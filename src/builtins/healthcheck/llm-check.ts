/**
 * Can each LLM source be reached? By default only what the daemon already knows (a source that rejected its
 * key, or is cooling down after failures); asked to probe, each source also gets one tiny request, all at
 * once and within PROBE_TIMEOUT_MS, since a probe costs tokens and time.
 */
import type { LlmSourceStatus, LlmTestResult } from "@homeagent/sdk";
import { type Check, fail, ok, warn } from "./check.js";

export const PROBE_TIMEOUT_MS = 10_000;

export type Probe = (source: string, opts: { timeoutMs: number }) => Promise<LlmTestResult>;

export async function llmChecks(sources: readonly LlmSourceStatus[], probe?: Probe): Promise<Check[]> {
  if (sources.length === 0) {
    return [fail("llm", "no LLM source is configured", "add one: /settings set core.llm.sources.main.base_url …")];
  }
  const probed = probe ? await Promise.all(sources.map((s) => probeOne(s.name, probe))) : [];
  return sources.map((s, i) => sourceCheck(s, probed[i]));
}

async function probeOne(name: string, probe: Probe): Promise<LlmTestResult> {
  try {
    return await probe(name, { timeoutMs: PROBE_TIMEOUT_MS });
  } catch (err) {
    return { source: name, ok: false, latencyMs: 0, model: "", error: (err as Error).message };
  }
}

function sourceCheck(s: LlmSourceStatus, probed: LlmTestResult | undefined): Check {
  const name = `llm:${s.name}`;
  const last = s.lastError ? ` (last error: ${s.lastError})` : "";
  if (probed && !probed.ok) {
    return fail(
      name,
      `${s.name} (${s.model}) did not answer a test request: ${probed.error ?? "no reason given"}`,
      `check core.llm.sources.${s.name}.base_url and its key, and that the server is up`,
    );
  }
  if (s.state === "unavailable") {
    return fail(name, `${s.name} rejected its credentials${last}`, `set core.llm.sources.${s.name}.api_key again`);
  }
  if (s.state === "cooling_down") {
    return warn(
      name,
      `${s.name} failed repeatedly and is skipped for now${last}`,
      "probe it: healthcheck with probe_llm",
    );
  }
  return ok(name, probed ? `${s.name} answered in ${probed.latencyMs} ms` : `${s.name} (${s.model}) is ready`);
}
