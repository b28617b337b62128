/**
 * The shapes of the API answers the tabs read (see the README's "HTTP API"). Where an answer carries the
 * daemon's own types they come from @homeagent/sdk (type-only: nothing of the SDK is bundled); only the
 * web server's own shapes are written here.
 */
import type {
  ConfigDefInfo,
  ConfigEntry,
  KernelStatus,
  LlmSourceStatus,
  MemoryStats,
  PluginInfo,
} from "@homeagent/sdk";

export type {
  ConfigDefInfo,
  ConfigEntry,
  ForgetReport,
  LlmSourceStatus,
  LlmSourceUsage,
  LlmTestResult,
  LlmUsageToday,
  MemoryStats,
  PluginInfo,
  ReloadReport,
  ScrubStatus,
} from "@homeagent/sdk";

/** The dashboard's two languages (i18n.ts). */
export type Lang = "en" | "zh";

/** The SSE hub's counters (src/builtins/webui/context.ts SseStats). */
export interface SseStats {
  clients: number;
  maxClients: number;
  sent: number;
  dropped: number;
  replayed: number;
  ring: number;
}

/** GET /api/v1/runtime */
/** `GET /api/v1/health`: the healthcheck plugin's report, failures first. */
export interface Health {
  status: "ok" | "warn" | "fail";
  counts: { ok: number; warn: number; fail: number };
  checks: Array<{ name: string; status: "ok" | "warn" | "fail"; detail: string; fix?: string }>;
  omitted: number;
  durationMs: number;
  at: number;
}

export interface Runtime {
  uptimeS: number;
  busy: boolean;
  queued: number;
  processed: number;
  llm: LlmSourceStatus[];
  plugins: Array<Pick<PluginInfo, "name" | "state" | "health" | "healthReason">>;
  events: KernelStatus["events"];
  sse: SseStats;
  process: { rssBytes: number; heapUsedBytes: number };
}

/** GET /api/v1/kernel */
export interface Kernel {
  status: KernelStatus;
  llm: LlmSourceStatus[];
  plugins: PluginInfo[];
  memory: MemoryStats | { unavailable: string };
  sse: SseStats;
}

/** GET /api/v1/settings */
export interface SettingsAnswer {
  settings: ConfigEntry[];
  defs: ConfigDefInfo[];
}
