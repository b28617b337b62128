/** The shapes of the API answers the tabs read (see the README's "HTTP API" and @homeagent/sdk's types). */

export interface SourceStatus {
  name: string;
  model: string;
  adapter?: string;
  available: boolean;
  state?: "ready" | "cooling_down" | "unavailable";
  lastError?: string;
  cooldownUntil?: number;
  priority?: number;
  preferred?: boolean;
  maxConcurrent?: number;
  inFlight?: number;
}

export interface PluginInfo {
  name: string;
  kind: string;
  state: string;
  health: "ok" | "unhealthy";
  capabilities: string[];
  critical: boolean;
  crashes: number;
  restarts: number;
  lastError?: string;
  pid?: number;
  version?: string;
  description?: string;
}

export interface SseStats {
  clients: number;
  maxClients: number;
  sent: number;
  dropped: number;
  replayed: number;
  ring: number;
}

export interface MemoryStats {
  context: { events: number; maxEvents: number };
  documents: number;
  entities: number;
  relations: number;
  sentences: number;
  indexed: Record<string, number>;
  hot: Array<{ name: string; mentions: number }>;
}

export interface Runtime {
  uptimeS: number;
  busy: boolean;
  queued: number;
  processed: number;
  llm: SourceStatus[];
  plugins: Array<Pick<PluginInfo, "name" | "state" | "health">>;
  events: { published: number; subscribers: number };
  sse: SseStats;
  process: { rssBytes: number; heapUsedBytes: number };
}

export interface Kernel {
  status: {
    version: string;
    uptimeS: number;
    busy: boolean;
    queued: number;
    processed: number;
    tools: number;
    outputChannels: string[];
    embedding: { active: string; fingerprint?: string; dimension?: number; degraded?: unknown[] };
    events: { published: number; subscribers: number };
    configProblems: Array<{ key: string; message: string }>;
  };
  llm: SourceStatus[];
  plugins: PluginInfo[];
  memory: MemoryStats | { unavailable: string };
  sse: SseStats;
}

export interface SettingDefInfo {
  key: string;
  default: string;
  description: string;
  type: "string" | "int" | "float" | "bool" | "duration" | "url" | "password" | "select" | "text";
  options?: string[];
  min?: number;
  max?: number;
  category?: string;
  displayName?: string;
  placeholder?: string;
  secret: boolean;
  env?: string;
}

export interface ConfigEntry {
  key: string;
  value: string;
  type: string;
  description: string;
  category: string;
}

export interface SettingsAnswer {
  settings: ConfigEntry[];
  defs: SettingDefInfo[];
}

export interface LlmTestResult {
  source: string;
  ok: boolean;
  latencyMs: number;
  model: string;
  reply?: string;
  error?: string;
}
