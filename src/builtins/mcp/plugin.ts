/**
 * Built-in `mcp` plugin: the MCP client. Every server of `plugin.mcp.servers` is started (all at once, never
 * holding up the daemon's start) and its tools become the agent's, as `<server>_<tool>`; a server that
 * fails or exits is reported (status, log, a `system` event `mcp_server`) and started again with backoff
 * while the others work. Calls are bounded (`call_timeout`, `max_result_chars`), media in results become
 * files the chat shows, and calls of tools that are not read-only ask the user first (`approve`). Edits of
 * the server list take effect without a restart: changed servers are restarted, the others left alone.
 */
import { join } from "node:path";
import { definePlugin, type Plugin, type PluginSDK, SdkError, type ToolContext } from "@homeagent/sdk";
import { needsApproval, riskOf } from "./approval.js";
import { type ConnectionStatus, McpConnection, type McpTool } from "./connection.js";
import { resultText } from "./result.js";
import { parseServers, reachOf, type ServerSpec } from "./servers.js";
import { type ApproveMode, MCP_SETTINGS } from "./settings.js";
import { type ListedTool, McpToolSet } from "./tool-set.js";

/** How often the server list is compared with the one running: an edit takes effect within this. */
const WATCH_MS = 1_000;
const CLIENT_VERSION = "1";

interface Server {
  spec: ServerSpec;
  reach: string;
  connection: McpConnection;
  tools: McpToolSet;
}

export interface ServerReport extends ConnectionStatus {
  disabled: boolean;
  tools: ListedTool[];
}

export function createMcpPlugin(): Plugin {
  const servers = new Map<string, Server>();
  let watch: NodeJS.Timeout | undefined;

  const start = (sdk: PluginSDK): void => {
    sdk.settings.define(MCP_SETTINGS);
    const uploadsDir = join(sdk.daemonDataDir, "workspace", "uploads");
    const env = childEnv();
    const cwd = join(sdk.daemonDataDir, "workspace");
    let applied = "";
    const lastState = new Map<string, string>();

    const announce = (status: ConnectionStatus): void => {
      const key = `${status.state}|${status.lastError ?? ""}`;
      if (lastState.get(status.name) === key) return;
      lastState.set(status.name, key);
      if (status.state === "restarting") {
        sdk.log.warn(`mcp: server "${status.name}" is down (${status.lastError ?? "no reason given"}); trying again`);
      } else if (status.state === "running") {
        sdk.log.info(`mcp: server "${status.name}" is running${status.server ? ` (${status.server})` : ""}`);
      }
      sdk.publish("system", {
        kind: "mcp_server",
        server: status.name,
        state: status.state,
        ...(status.lastError ? { error: status.lastError } : {}),
      });
    };

    const callOf =
      (server: string) =>
      (tool: McpTool, name: string) =>
      async (args: Record<string, unknown>, ctx: ToolContext): Promise<string> => {
        const current = servers.get(server);
        if (!current)
          throw new SdkError({ code: "not_found", message: `MCP server "${server}" is no longer configured` });
        const mode = (sdk.settings.get("approve") ?? "unless_read_only") as ApproveMode;
        if (needsApproval(mode, tool.annotations)) await approve(sdk, ctx, server, tool, args);
        const timeoutMs = durationMs(sdk.settings.get("call_timeout"), 60_000);
        let result: Record<string, unknown>;
        try {
          result = await current.connection.call(tool.name, args, { signal: ctx.signal, timeoutMs });
        } catch (err) {
          throw callError(err, name, timeoutMs);
        }
        const maxChars = Number(sdk.settings.get("max_result_chars") ?? 20_000);
        const out = await resultText(result, { server, uploadsDir, maxChars });
        if (out.isError)
          throw new SdkError({ code: "tool_failed", message: `the MCP tool answered with an error: ${out.text}` });
        return out.text;
      };

    const add = (spec: ServerSpec): void => {
      const tools = new McpToolSet(sdk, spec.name, callOf(spec.name), spec.disabledTools);
      const connection = new McpConnection(
        spec,
        { tools: (listed) => tools.sync(listed), changed: announce },
        { env, cwd, clientVersion: CLIENT_VERSION },
      );
      servers.set(spec.name, { spec, reach: reachOf(spec), connection, tools });
      connection.start();
    };

    const remove = (server: Server): void => {
      servers.delete(server.spec.name);
      server.tools.clear();
      lastState.delete(server.spec.name);
      void server.connection.close();
    };

    /** Brings the running servers in line with the setting: new ones started, changed ones restarted. */
    const apply = (): void => {
      const value = sdk.settings.get("servers") ?? "";
      if (value === applied) return;
      applied = value;
      let specs: ServerSpec[];
      try {
        specs = parseServers(value);
      } catch (err) {
        sdk.log.error(`mcp: plugin.mcp.servers cannot be read (${(err as Error).message}); no servers are started`);
        specs = [];
      }
      const byName = new Map(specs.map((spec) => [spec.name, spec]));
      for (const server of [...servers.values()]) {
        const next = byName.get(server.spec.name);
        if (!next || reachOf(next) !== server.reach) remove(server);
      }
      for (const spec of specs) {
        const running = servers.get(spec.name);
        if (!running) add(spec);
        else {
          // Same server, other tools switched off: registered anew from the list it gave, no restart.
          running.spec = spec;
          running.tools.disable(spec.disabledTools);
        }
      }
    };

    const refresh = async (server: Server): Promise<void> => {
      await server.connection.close();
      servers.delete(server.spec.name);
      server.tools.clear();
      add(server.spec);
    };

    apply();
    watch = setInterval(apply, WATCH_MS);
    watch.unref();

    sdk.registerTool(
      {
        name: "mcp_servers",
        description:
          "The MCP servers HomeAgent is connected to: each one's state (running, restarting, disabled), its last error, and its tools (the names to call them by, whether read-only).",
        parameters: {
          type: "object",
          properties: { log: { type: "boolean", description: "Also each server's last lines of output." } },
        },
        noMemory: true,
      },
      (args) => [...servers.values()].map((server) => report(server, args.log === true)),
    );
    sdk.registerTool(
      {
        name: "mcp_restart",
        description: "Starts one MCP server again (stops its program or connection and connects anew).",
        parameters: {
          type: "object",
          properties: { server: { type: "string", description: "The server's name, as mcp_servers lists it." } },
          required: ["server"],
        },
      },
      async (args) => {
        const server = servers.get(String(args.server));
        if (!server) {
          throw new SdkError({
            code: "not_found",
            message: `no MCP server named "${String(args.server).slice(0, 64)}"; mcp_servers lists them`,
          });
        }
        await refresh(server);
        return { restarted: server.spec.name };
      },
    );
  };

  const stop = async (): Promise<void> => {
    clearInterval(watch);
    const all = [...servers.values()];
    servers.clear();
    await Promise.all(all.map((server) => server.connection.close()));
  };

  return definePlugin({ name: "mcp", start, stop });
}

function report(server: Server, withLog: boolean): ServerReport {
  const status = server.connection.status();
  return {
    ...status,
    log: withLog ? status.log : status.log.slice(-5),
    disabled: server.spec.disabled,
    tools: server.tools.tools(),
  };
}

async function approve(
  sdk: PluginSDK,
  ctx: ToolContext,
  server: string,
  tool: McpTool,
  args: Record<string, unknown>,
): Promise<void> {
  const shown = JSON.stringify(args);
  const outcome = await sdk.ask({
    requestId: ctx.requestId,
    question: `run ${tool.name} of MCP server "${server}" (${riskOf(tool.annotations)}) with ${shown.length > 600 ? `${shown.slice(0, 600)}…` : shown}`,
    // "always" approves this tool of this server, whatever its arguments.
    subject: JSON.stringify({ mcp: server, tool: tool.name }),
    options: ["once", "always", "deny"],
  });
  if (outcome.approved) return;
  throw new SdkError({
    code: "approval_refused",
    message:
      outcome.reason === "no_client"
        ? `not run: ${tool.name} of MCP server "${server}" needs the user's approval, and nobody is connected who could give it (waiter or the dashboard)`
        : `not run: the user's approval was ${outcome.reason === "denied" ? "refused" : `not given (${outcome.reason})`}`,
  });
}

function callError(err: unknown, name: string, timeoutMs: number): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (/timed? ?out/i.test(message)) {
    return new SdkError({
      code: "tool_timeout",
      message: `${name} did not answer within ${Math.round(timeoutMs / 1000)} s (plugin.mcp.call_timeout) and was cancelled`,
      cause: err,
    });
  }
  return new SdkError({ code: "tool_failed", message, cause: err });
}

/** The user's environment minus HomeAgent's own variables (its API key among them). */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("HOMEAGENT_")) env[key] = value;
  }
  return env;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A setting's duration ("60s", "1m30s": validated when written) in milliseconds; else `fallback`. */
function durationMs(value: string | undefined, fallback: number): number {
  const parts = [...(value ?? "").matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0) return fallback;
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_MS[unit], 0);
}
