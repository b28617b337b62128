/**
 * `/health`: the healthcheck plugin's report (its `healthcheck` tool, run for the user), failures first, each
 * with what to do. `/health probe` also sends each LLM source a test request; `/health <plugin>` checks one.
 */
import type { FinalFrame } from "@homeagent/cli-protocol";
import { type PluginSDK, SdkError } from "@homeagent/sdk";

export const HEALTH_HELP = [
  "/health [probe | <plugin>]    health checks: plugins, tools, LLM sources, memory, disk, clock",
];

interface HealthCheck {
  name: string;
  status: string;
  detail: string;
  fix?: string;
}

interface HealthReport {
  status: string;
  counts: Record<string, number>;
  checks: HealthCheck[];
  omitted: number;
  durationMs: number;
}

export async function healthCommand(sdk: PluginSDK, args: string): Promise<FinalFrame> {
  const arg = args.trim();
  const toolArgs = arg === "probe" ? { probe_llm: true } : arg ? { plugin: arg } : {};
  let text: string;
  try {
    text = await sdk.runTool("healthcheck", toolArgs);
  } catch (err) {
    if (err instanceof SdkError && err.code === "not_found") {
      return { type: "error", error: "the healthcheck plugin is not running: /plugins enable healthcheck" };
    }
    throw err;
  }
  return { type: "response", content: format(JSON.parse(text) as HealthReport) };
}

function format(r: HealthReport): string {
  const head = `${r.status.toUpperCase()}: ${r.counts.fail ?? 0} failed, ${r.counts.warn ?? 0} warnings, ${r.counts.ok ?? 0} ok (${r.durationMs} ms)`;
  const lines = r.checks
    .filter((c) => c.status !== "ok")
    .map((c) => `${c.status === "fail" ? "✗" : "!"} ${c.name}: ${c.detail}${c.fix ? `\n    → ${c.fix}` : ""}`);
  const omitted = r.omitted > 0 ? [`(${r.omitted} more checks not listed)`] : [];
  return [head, ...lines, ...omitted].join("\n");
}
