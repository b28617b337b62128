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

/** `GET /api/v1/mcp/servers`: one MCP server as the mcp plugin reports it (src/builtins/mcp/plugin.ts). */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse";
  state: "starting" | "running" | "restarting" | "disabled" | "stopped";
  lastError?: string;
  restarts: number;
  /** Unix ms of the next try, while restarting. */
  retryAt?: number;
  /** The server's own name and version. */
  server?: string;
  log: string[];
  disabled: boolean;
  tools: McpToolStatus[];
}

export interface McpToolStatus {
  /** The name the model calls. */
  name: string;
  /** The server's own name for it (what `disabledTools` lists). */
  tool: string;
  description: string;
  hints: { readOnlyHint?: boolean; destructiveHint?: boolean };
  enabled: boolean;
  problem?: string;
}
