/**
 * Built-in `healthcheck` plugin: is HomeAgent healthy, and if not, what is wrong and what to do? Static
 * checks that need no LLM — plugins running, every tool's definition valid for every provider, LLM sources
 * reachable (probed only when asked), memory.db and its index intact, room on the disk, a sane clock — as
 * the model's tools, and through `healthcheck` for waiter's /health and the dashboard (sdk.runTool). It also
 * keeps what the model reports when it tries tools (healthcheck_report) and how long tools take
 * (healthcheck_perf), and runs the LLM-driven self-test every `auto_interval` when the user turns it on
 * (self-test.ts); its last run is part of the report.
 */
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { definePlugin, type MemoryCheck, type Plugin, type PluginSDK, parseDuration, SdkError } from "@homeagent/sdk";
import { type Check, report } from "./check.js";
import { type GroupContext, type GroupName, runGroups } from "./groups.js";
import { PerfLog } from "./perf.js";
import { pluginChecks } from "./plugins-check.js";
import { REPORT_STATUSES, type ReportStatus, ToolReports } from "./reports.js";
import { providerOf } from "./schema-rules.js";
import { SelfTest } from "./self-test.js";
import { HEALTHCHECK_SETTINGS } from "./settings.js";
import { HEALTHCHECK_TOOLS } from "./tool-defs.js";
import { toolChecks } from "./tools-check.js";

const ALL_GROUPS: readonly GroupName[] = ["plugins", "tools", "llm", "memory", "kernel", "disk", "clock"];
const MAX_DETAIL = 2_000;
/** How often the self-test's interval is looked at: a changed setting takes effect within a minute. */
const SELF_TEST_TICK_MS = 60_000;
/** How old a memory check the full report may show: it reads all of memory.db. */
const MEMORY_CHECK_REUSE_MS = 10 * 60_000;

export function createHealthcheckPlugin(): Plugin {
  let ticker: NodeJS.Timeout | undefined;
  const start = (sdk: PluginSDK): void => {
    sdk.settings.define(HEALTHCHECK_SETTINGS);
    const history = () => Number(sdk.settings.get("perf_history") ?? 100);
    const perf = new PerfLog(history);
    const reports = new ToolReports(history);
    const clockAtStart = { wall: Date.now(), mono: performance.now() };
    const builtAt = statSync(fileURLToPath(import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
    sdk.subscribe("tool_call", (event) => perf.onToolCall(event));
    const selfTest = new SelfTest(sdk);
    ticker = setInterval(() => void selfTest.tick(), SELF_TEST_TICK_MS);
    ticker.unref();

    // A poller (the dashboard) may take a recent memory check instead of reading memory.db through again.
    let lastMemory: { at: number; check: Promise<MemoryCheck> } | undefined;
    const memoryCheck = (reuse: boolean, timeoutMs: number): Promise<MemoryCheck> => {
      if (!reuse || !lastMemory || Date.now() - lastMemory.at > MEMORY_CHECK_REUSE_MS) {
        const check = sdk.memory.check({ timeoutMs });
        lastMemory = { at: Date.now(), check };
        check.catch(() => {
          if (lastMemory?.check === check) lastMemory = undefined;
        });
      }
      return lastMemory.check;
    };
    const context = (args: Record<string, unknown>): GroupContext => {
      const memoryTimeoutMs = parseDuration(sdk.settings.get("memory_timeout") ?? "20s");
      return {
        sdk,
        perf,
        probeLlm: args.probe_llm === true,
        memoryTimeoutMs,
        memoryCheck: () => memoryCheck(args.reuse_memory_check === true, memoryTimeoutMs),
        clockAtStart,
        builtAt,
      };
    };
    const run = async (groups: readonly GroupName[], args: Record<string, unknown>, extra: Check[] = []) => {
      const started = performance.now();
      return report([...(await runGroups(groups, context(args))), ...extra], started);
    };

    const handlers: Record<string, (args: Record<string, unknown>) => unknown> = {
      healthcheck: (args) =>
        typeof args.plugin === "string" && args.plugin !== ""
          ? onePlugin(sdk, args.plugin, reports)
          : run(ALL_GROUPS, args, [...selfTest.checks(), ...reports.checks()]),
      healthcheck_plugins: (args) => run(["plugins"], args),
      healthcheck_tools: (args) => run(["tools"], args, reports.checks()),
      healthcheck_memory: (args) => run(["memory"], args),
      healthcheck_kernel: (args) => run(["kernel", "llm", "disk", "clock"], args),
      healthcheck_perf: () => ({ history: history(), ...perf.summary() }),
      healthcheck_report: (args) => {
        reports.add(toolReport(args));
        return { recorded: true, kept: reports.count() };
      },
    };
    for (const def of HEALTHCHECK_TOOLS) sdk.registerTool(def, (args) => handlers[def.name](args));
  };

  return definePlugin({ name: "healthcheck", start, stop: () => clearInterval(ticker) });
}

/** One plugin: whether it runs, its tools' definitions, and what the model reported of them. */
function onePlugin(sdk: PluginSDK, name: string, reports: ToolReports) {
  const started = performance.now();
  const plugin = sdk.pluginMgr.list().find((p) => p.name === name);
  if (!plugin) {
    throw new SdkError({ code: "not_found", message: `no plugin named "${name}"; healthcheck_plugins lists them` });
  }
  const tools = sdk.kernel.tools().filter((t) => t.owner === name);
  const inUse = new Set(sdk.llm.sources().map((s) => providerOf(s.adapter)));
  const toolNames = new Set(tools.map((t) => `report:${t.name}`));
  return report(
    [
      ...pluginChecks([plugin]),
      ...(tools.length > 0 ? toolChecks(tools, inUse) : []),
      ...reports.checks().filter((c) => toolNames.has(c.name)),
    ],
    started,
  );
}

function toolReport(args: Record<string, unknown>) {
  const toolName = typeof args.tool_name === "string" ? args.tool_name.trim() : "";
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(toolName)) {
    throw new SdkError({ code: "invalid_argument", message: "tool_name must be the name of the tool you tried" });
  }
  if (!REPORT_STATUSES.includes(args.status as ReportStatus)) {
    throw new SdkError({ code: "invalid_argument", message: `status must be one of ${REPORT_STATUSES.join(", ")}` });
  }
  const detail = typeof args.detail === "string" ? args.detail.slice(0, MAX_DETAIL) : "";
  return { toolName, status: args.status as ReportStatus, detail, at: Date.now() };
}
