/**
 * The groups of checks, each reading what it needs through the SDK, and running them: in parallel, each
 * within its own time limit (a group that overruns or throws becomes one failed check naming it), with its
 * duration recorded for healthcheck_perf.
 */
import { type MemoryCheck, type PluginSDK, SdkError } from "@homeagent/sdk";
import { type Check, fail } from "./check.js";
import { clockCheck } from "./clock-check.js";
import { diskCheck } from "./disk-check.js";
import { kernelChecks } from "./kernel-check.js";
import { llmChecks, PROBE_TIMEOUT_MS } from "./llm-check.js";
import { memoryChecks } from "./memory-check.js";
import type { PerfLog } from "./perf.js";
import { pluginChecks } from "./plugins-check.js";
import { providerOf } from "./schema-rules.js";
import { toolChecks } from "./tools-check.js";

export type GroupName = "plugins" | "tools" | "llm" | "memory" | "kernel" | "disk" | "clock";

export interface GroupContext {
  sdk: PluginSDK;
  perf: PerfLog;
  /** Send each LLM source a test request. */
  probeLlm: boolean;
  memoryTimeoutMs: number;
  /** memory.check(), or a recent enough answer of it (the whole file is read: not on every poll). */
  memoryCheck: () => Promise<MemoryCheck>;
  clockAtStart: { wall: number; mono: number };
  builtAt?: number;
}

/** Time limit of a group that only reads the daemon's state (no I/O worth the name). */
const QUICK_MS = 5_000;
/** Beyond the probe's or memory check's own limit: its answer has to come back too. */
const MARGIN_MS = 2_000;

const GROUPS: Record<GroupName, { limitMs: (c: GroupContext) => number; run: (c: GroupContext) => Promise<Check[]> }> =
  {
    plugins: { limitMs: () => QUICK_MS, run: async ({ sdk }) => pluginChecks(sdk.pluginMgr.list()) },
    tools: {
      limitMs: () => QUICK_MS,
      run: async ({ sdk }) =>
        toolChecks(sdk.kernel.tools(), new Set(sdk.llm.sources().map((s) => providerOf(s.adapter)))),
    },
    llm: {
      limitMs: (c) => (c.probeLlm ? PROBE_TIMEOUT_MS + MARGIN_MS : QUICK_MS),
      run: ({ sdk, probeLlm }) => llmChecks(sdk.llm.sources(), probeLlm ? (s, o) => sdk.llm.test(s, o) : undefined),
    },
    memory: {
      limitMs: (c) => c.memoryTimeoutMs + MARGIN_MS,
      run: async (c) => memoryChecks(await c.memoryCheck()),
    },
    kernel: { limitMs: () => QUICK_MS, run: async ({ sdk }) => kernelChecks(sdk.kernel.status()) },
    disk: { limitMs: () => QUICK_MS, run: async ({ sdk }) => [await diskCheck(sdk.daemonDataDir)] },
    clock: {
      limitMs: () => QUICK_MS,
      run: async (c) => [
        clockCheck({
          wallAtStart: c.clockAtStart.wall,
          monoAtStart: c.clockAtStart.mono,
          wallNow: Date.now(),
          monoNow: performance.now(),
          builtAt: c.builtAt,
          newestEvent: await newestEvent(c.sdk),
        }),
      ],
    },
  };

export async function runGroups(names: readonly GroupName[], c: GroupContext): Promise<Check[]> {
  const results = await Promise.all(names.map((name) => runGroup(name, c)));
  return results.flat();
}

async function runGroup(name: GroupName, c: GroupContext): Promise<Check[]> {
  const group = GROUPS[name];
  const limitMs = group.limitMs(c);
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<Check[]>((resolve) => {
    timer = setTimeout(
      () =>
        resolve([
          fail(
            name,
            `the ${name} checks did not finish within ${limitMs / 1000} s`,
            "check again when the daemon is idle",
          ),
        ]),
      limitMs,
    );
  });
  const checks = await Promise.race([group.run(c).catch((err: unknown) => [failure(name, err)]), overrun]);
  clearTimeout(timer);
  const ok = checks.every((x) => x.status !== "fail");
  c.perf.record({ name: `check:${name}`, durationMs: performance.now() - started, ok, at: Date.now() });
  return checks;
}

function failure(name: GroupName, err: unknown): Check {
  if (err instanceof SdkError && err.code === "memory_unavailable") {
    return fail(name, err.message, "see the daemon log for why memory did not start");
  }
  return fail(name, `the ${name} checks could not run: ${(err as Error).message}`);
}

/** The newest event memory holds, for the clock check; none when memory is not running. */
async function newestEvent(sdk: PluginSDK): Promise<number | undefined> {
  try {
    const [context, turn] = await Promise.all(
      (["context", "turn"] as const).map((kind) => sdk.memory.list({ kind, limit: 1 })),
    );
    const ts = [...context.items, ...turn.items].map((i) => i.ts);
    return ts.length > 0 ? Math.max(...ts) : undefined;
  } catch {
    return undefined;
  }
}
