/** Slash commands of the cli socket. Each answers with one final frame; a throw becomes an error frame. */
import type { FinalFrame } from "@homeagent/cli-protocol";
import type { ContextReport, KernelStatus, LlmSourceStatus, PluginSDK } from "@homeagent/sdk";
import { APPROVALS_HELP } from "./approval-commands.js";
import { CMD_HELP } from "./cmd-command.js";
import { HEALTH_HELP } from "./health-command.js";
import { HISTORY_HELP } from "./history-command.js";
import { MCP_HELP } from "./mcp-command.js";
import { MEMORY_HELP } from "./memory-commands.js";
import { PLUGINS_HELP } from "./plugin-commands.js";

export const HELP_TEXT = [
  "/help                         this list",
  "/status                       daemon status",
  "/tools                        names of the registered tools",
  "/context                      tokens per prompt section of the last LLM request",
  "/settings [prefix]            configuration entries (secrets are masked)",
  "/settings set <key> <value>   change a configuration entry",
  "/llm                          LLM sources: model, state, last error",
  "/llm use <name>               prefer this source until changed (/llm use auto: priority order)",
  ...MEMORY_HELP,
  ...PLUGINS_HELP,
  ...APPROVALS_HELP,
  ...CMD_HELP,
  ...HISTORY_HELP,
  ...MCP_HELP,
  ...HEALTH_HELP,
  "/auth <key>                   authenticate (must be the first line when homed has an API key)",
  "any other line                a message to the agent",
].join("\n");

export function runCommand(sdk: PluginSDK, line: string): FinalFrame {
  const match = /^\/(\S*)\s*(.*)$/s.exec(line.trim());
  const [name, rest] = match ? [match[1], match[2]] : ["", ""];
  switch (name) {
    case "help":
      return { type: "response", content: HELP_TEXT };
    case "status": {
      const status = sdk.kernel.status();
      return { type: "response", content: formatStatus(status), status };
    }
    case "tools":
      return { type: "tools", tools: sdk.kernel.toolNames() };
    case "context":
      return { type: "response", content: formatContext(sdk.kernel.context()) };
    case "settings":
      return settings(sdk, rest);
    case "llm":
      return llm(sdk, rest);
    default:
      return { type: "error", error: `unknown command "/${name}": type /help for the list` };
  }
}

function settings(sdk: PluginSDK, args: string): FinalFrame {
  const set = /^set(?:\s+(\S+)(?:\s+(.*))?)?$/s.exec(args);
  if (!set) {
    const entries = sdk.config.list(args || undefined);
    return {
      type: "settings",
      settings: entries.map(({ key, value, type, description }) => ({ key, value, type, description })),
    };
  }
  const [, key, value] = set;
  if (key === undefined || value === undefined) {
    return { type: "error", error: "usage: /settings set <key> <value>" };
  }
  sdk.config.set(key, value);
  // The value is not echoed: it may be a secret.
  return { type: "response", content: `${key} updated` };
}

function llm(sdk: PluginSDK, args: string): FinalFrame {
  if (args === "") return { type: "response", content: formatSources(sdk.llm.sources()) };
  const use = /^use\s+(\S+)$/.exec(args);
  if (!use) return { type: "error", error: "usage: /llm or /llm use <name>" };
  const name = use[1].toLowerCase() === "auto" ? "" : use[1];
  sdk.llm.use(name);
  return {
    type: "response",
    content: name ? `LLM source ${name} is now preferred` : "LLM sources back in priority order",
  };
}

function formatSources(sources: LlmSourceStatus[]): string {
  if (sources.length === 0) {
    return "no LLM source configured: add one with /settings set core.llm.sources.<name>.base_url <url> (then .model and .api_key the same way), or start homed with HOMEAGENT_LLM_BASE_URL set";
  }
  return sources
    .map((s) => {
      const facts = [
        `${s.adapter || "?"} ${s.model || "default model"}`,
        `priority ${s.priority}`,
        s.contextWindow ? `${s.contextWindow} tokens` : "",
        s.supportsTools === false ? "no tools" : "",
      ].filter(Boolean);
      const state =
        s.state === "cooling_down" && s.cooldownUntil
          ? `cooling down until ${new Date(s.cooldownUntil).toLocaleTimeString()}`
          : s.state;
      const why = s.lastError ? ` (${s.lastError})` : "";
      return `${s.preferred ? "*" : " "} ${s.name}: ${facts.join(", ")}; ${state}${why}`;
    })
    .join("\n");
}

/** One line per section: tokens used of the tokens it was given. */
function formatContext(r: ContextReport | null): string {
  if (!r) return "no LLM request yet: send a message first";
  const used = r.sections.reduce((sum, s) => sum + s.tokens, 0);
  const width = Math.max(...r.sections.map((s) => s.name.length));
  const lines = [
    `last request ${r.requestId} at ${new Date(r.at).toLocaleTimeString()}: ${used} of ${r.budget} tokens (window ${r.contextWindow})`,
    ...r.sections.map((s) => `  ${s.name.padEnd(width)}  ${String(s.tokens).padStart(6)} / ${s.budget}`),
    `tools offered: ${r.toolsOffered} of ${r.toolsTotal}${r.toolsOffered < r.toolsTotal ? " (the rest via tool_search)" : ""}`,
  ];
  return lines.join("\n");
}

function formatStatus(s: KernelStatus): string {
  const lines = [
    `homed ${s.version}, up ${s.uptimeS}s, ${s.busy ? "busy" : "idle"}, ${s.queued} queued, ${s.processed} processed`,
    `tools: ${s.tools}; output channels: ${s.outputChannels.join(", ") || "none"}`,
  ];
  for (const src of s.llm.sources) {
    const state = src.available ? "available" : `unavailable${src.lastError ? ` (${src.lastError})` : ""}`;
    lines.push(`llm ${src.name} [${src.model}]: ${state}`);
  }
  for (const p of s.plugins) lines.push(`plugin ${p.name}: ${p.state}${p.lastError ? ` (${p.lastError})` : ""}`);
  lines.push(`embedding: ${s.embedding.active} (${s.embedding.dimension} dimensions)`);
  for (const d of s.embedding.degraded) lines.push(`embedding tier ${d.tier} not used: ${d.reason}`);
  return lines.join("\n");
}
