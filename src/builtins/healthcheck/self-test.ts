/**
 * The LLM-driven self-test (the original's "hc" instance): every `plugin.healthcheck.auto_interval` (off by
 * default — it costs tokens), the model is given the daemon's read-only tools in an isolated self-task —
 * its own lane, an allowlist, no memory, no delivery, bounded in time and tool rounds — and asked to try
 * each one and say how it went with healthcheck_report. Nothing it may call writes, runs a program or asks
 * the user; what it found shows in the next health report beside the static checks.
 */
import { type PluginSDK, parseDuration } from "@homeagent/sdk";
import type { Check } from "./check.js";

/** Tools the self-test may try: none writes, runs a program, sends anything or asks the user. */
const SAFE_TOOLS: readonly string[] = [
  "memory_recall",
  "doc_query",
  "knowledge_search",
  "knowledge_list",
  "timer_list",
  "files_ls",
  "files_find",
  "config_get",
  "config_list_keys",
  "cmd_history",
  "mcp_servers",
  "healthcheck_plugins",
  "healthcheck_tools",
  "healthcheck_kernel",
];
const REPORT_TOOL = "healthcheck_report";

export interface SelfTestRun {
  at: number;
  durationMs: number;
  tools: string[];
  /** The model's closing words, or why the run failed. */
  outcome: string;
  ok: boolean;
}

export class SelfTest {
  private last?: SelfTestRun;
  private running = false;
  private lastStart = 0;

  constructor(
    private readonly sdk: PluginSDK,
    private readonly now: () => number = Date.now,
  ) {}

  /** Called every minute: runs when the interval set in auto_interval has passed since the last run. */
  async tick(): Promise<void> {
    const every = parseDuration(this.sdk.settings.get("auto_interval") ?? "0");
    if (every <= 0 || this.running) return;
    if (this.lastStart === 0) this.lastStart = this.now();
    if (this.now() - this.lastStart < every) return;
    await this.run();
  }

  async run(): Promise<SelfTestRun> {
    this.running = true;
    this.lastStart = this.now();
    const started = this.now();
    const present = new Set(this.sdk.kernel.toolNames());
    const tools = SAFE_TOOLS.filter((name) => present.has(name));
    try {
      const reply = await this.sdk.selfTask(prompt(tools), {
        tools: [...tools, REPORT_TOOL],
        maxToolTurns: Number(this.sdk.settings.get("llm_max_turns") ?? 20),
        timeoutMs: parseDuration(this.sdk.settings.get("llm_timeout") ?? "120s"),
      });
      this.last = {
        at: started,
        durationMs: this.now() - started,
        tools,
        outcome: (reply.error ?? reply.content).slice(0, 600),
        ok: !reply.error,
      };
    } catch (err) {
      this.last = { at: started, durationMs: this.now() - started, tools, outcome: (err as Error).message, ok: false };
    } finally {
      this.running = false;
    }
    this.sdk.log.info(`healthcheck: self-test ${this.last.ok ? "ran" : "failed"} in ${this.last.durationMs} ms`);
    return this.last;
  }

  /** The last run as a check of the report (none before the first run). */
  checks(): Check[] {
    if (!this.last) return [];
    const when = new Date(this.last.at).toISOString();
    return [
      {
        name: "self-test",
        status: this.last.ok ? "ok" : "warn",
        detail: `last run ${when}, ${this.last.tools.length} tools offered, ${this.last.durationMs} ms: ${this.last.outcome}`,
        ...(this.last.ok
          ? {}
          : { fix: "see the LLM sources check; plugin.healthcheck.llm_timeout and llm_max_turns bound the run" }),
      },
    ];
  }
}

function prompt(tools: readonly string[]): string {
  return [
    "This is HomeAgent's self-test; no user is reading. Check that each of these tools works:",
    tools.join(", "),
    'Call each one once with small, harmless arguments (a short query such as "test", the workspace\'s root).',
    `After each call, record how it went with ${REPORT_TOOL}(tool_name, status "ok", "fail" or "skip", detail):`,
    "fail when it returned an error or something that makes no sense, skip when you could not try it.",
    "End with one line: how many worked and which did not.",
  ].join("\n");
}
