/**
 * Built-in `mcp` plugin: the MCP client. Every server of `plugin.mcp.servers` is started (all at once, never
 * holding up the daemon's start) and its tools become the agent's, as `<server>_<tool>`; a server that
 * fails or exits is reported (status, log, a `system` event `mcp_server`) and started again with backoff
 * while the others work. Calls are bounded (`call_timeout`, `max_result_chars`), media in results become
 * files the chat shows, and calls of tools that are not read-only ask the user first (`approve`). Edits of
 * the server list take effect without a restart: changed servers are restarted, the others left alone.
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { definePlugin, type Plugin, type PluginSDK, parseDuration, SdkError, type ToolContext } from "@homeagent/sdk";
import { needsApproval, riskOf } from "./approval.js";
import { type ConnectionStatus, McpConnection, type McpTool } from "./connection.js";
import { cleanText } from "./names.js";
import { resultText } from "./result.js";
import { parseServers, reachOf, type ServerSpec } from "./servers.js";
import { type ApproveMode, MCP_SETTINGS } from "./settings.js";
import { type ListedTool, McpToolSet } from "./tool-set.js";

/** How often the server list is compared with the one running: an edit takes effect within this. */
const WATCH_MS = 1_000;
const CLIENT_VERSION = "1";
/** Tools the plugin may have registered (its grant in builtins/index.ts): its own two and its servers'. */
export const MCP_TOOL_LIMIT = 1_024;
const OWN_TOOLS = 2;
/** Tools of one server per mcp_servers answer: well under the daemon's limit of a tool's result. */
const TOOLS_PAGE = 100;

interface Server {
  spec: ServerSpec;
  reach: string;
  connection: McpConnection;
  tools: McpToolSet;
}

export interface ServerOverview extends ConnectionStatus {
  disabled: boolean;
  /** Tools it lists. */
  tools: number;
  /** Of them, registered as the agent's now. */
  registered: number;
}

export interface ServerDetail extends ServerOverview {
  offset: number;
  /** Its tools from `offset`, at most TOOLS_PAGE. */
  toolList: ListedTool[];
  more: boolean;
}

export function createMcpPlugin(): Plugin {
  const servers = new Map<string, Server>();
  let watch: NodeJS.Timeout | undefined;
  let stopped = false;

  const start = (sdk: PluginSDK): void => {
    sdk.settings.define(MCP_SETTINGS);
    const uploadsDir = join(sdk.daemonDataDir, "workspace", "uploads");
    const env = childEnv();
    const cwd = join(sdk.daemonDataDir, "workspace");
    // A program's default folder; the other built-ins that make it may not have run yet.
    mkdirSync(cwd, { recursive: true, mode: 0o700 });
    let applied = "";
    // Each server's share of the plugin's tools, so the first to connect cannot take them all.
    const toolShare = (): number => Math.floor((MCP_TOOL_LIMIT - OWN_TOOLS) / Math.max(1, wanted.size));
    /** The servers as the setting lists them now, by name. */
    let wanted = new Map<string, ServerSpec>();
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
      (tool: McpTool) =>
      async (args: Record<string, unknown>, ctx: ToolContext): Promise<string> => {
        const current = servers.get(server);
        if (!current)
          throw new SdkError({ code: "not_found", message: `MCP server "${server}" is no longer configured` });
        const mode = (sdk.settings.get("approve") ?? "unless_read_only") as ApproveMode;
        if (needsApproval(mode, tool.annotations)) await approve(sdk, ctx, current.spec, tool, args);
        const timeoutMs = parseDuration(sdk.settings.get("call_timeout") ?? "60s");
        const result = await current.connection.call(tool.name, args, { signal: ctx.signal, timeoutMs });
        const maxChars = Number(sdk.settings.get("max_result_chars") ?? 20_000);
        const out = await resultText(result, { server, uploadsDir, maxChars });
        // The server's own credentials stay out of what the model reads, even when a tool echoes them.
        const text = current.connection.redact(out.text);
        if (out.isError)
          throw new SdkError({ code: "tool_failed", message: `the MCP tool answered with an error: ${text}` });
        return text;
      };

    const add = (spec: ServerSpec): void => {
      const tools = new McpToolSet(sdk, spec.name, callOf(spec.name), spec.disabledTools, toolShare);
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
      wanted = byName;
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

    /** Restarts one server by hand; one already replaced, removed or restarting (or a stopped plugin) is left be. */
    const refresh = async (server: Server): Promise<void> => {
      const name = server.spec.name;
      if (servers.get(name) !== server) return;
      servers.delete(name);
      server.tools.clear();
      await server.connection.close();
      const spec = wanted.get(name);
      if (!stopped && spec && !servers.has(name)) add(spec);
    };

    apply();
    watch = setInterval(apply, WATCH_MS);
    watch.unref();

    sdk.registerTool(
      {
        name: "mcp_servers",
        description:
          "The MCP servers HomeAgent is connected to: each one's state (running, restarting, disabled), its last error and how many tools it has. With `server`: that server's tools (the names to call them by, whether read-only, why one is left out), a page at a time.",
        parameters: {
          type: "object",
          properties: {
            server: { type: "string", description: "One server's name: its tools." },
            offset: { type: "integer", description: `The first of its tools to list (${TOOLS_PAGE} per page).` },
            log: { type: "boolean", description: "All of the server's last lines of output, not only the last 5." },
          },
        },
        noMemory: true,
      },
      (args) => {
        const withLog = args.log === true;
        if (typeof args.server !== "string") return [...servers.values()].map((server) => overview(server, withLog));
        const server = servers.get(args.server);
        if (!server) throw unknownServer(args.server);
        return detail(server, withLog, Math.max(0, Math.floor(Number(args.offset ?? 0)) || 0));
      },
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
        if (!server) throw unknownServer(args.server);
        await refresh(server);
        return { restarted: server.spec.name };
      },
    );
  };

  const stop = async (): Promise<void> => {
    stopped = true;
    clearInterval(watch);
    const all = [...servers.values()];
    servers.clear();
    await Promise.all(all.map((server) => server.connection.close()));
  };

  return definePlugin({ name: "mcp", start, stop });
}

/** A server's state and how many tools it has; what the model and the dashboard read first. */
function overview(server: Server, withLog: boolean): ServerOverview {
  const status = server.connection.status();
  const tools = server.tools.tools();
  return {
    ...status,
    log: withLog ? status.log : status.log.slice(-5),
    disabled: server.spec.disabled,
    tools: tools.length,
    registered: server.tools.count(),
  };
}

/** One server with a page of its tools: bounded however many tools a server lists. */
function detail(server: Server, withLog: boolean, offset: number): ServerDetail {
  const tools = server.tools.tools();
  return {
    ...overview(server, withLog),
    offset,
    toolList: tools.slice(offset, offset + TOOLS_PAGE),
    more: offset + TOOLS_PAGE < tools.length,
  };
}

function unknownServer(name: unknown): SdkError {
  return new SdkError({
    code: "not_found",
    message: `no MCP server named "${String(name).slice(0, 64)}"; mcp_servers lists them`,
  });
}

async function approve(
  sdk: PluginSDK,
  ctx: ToolContext,
  spec: ServerSpec,
  tool: McpTool,
  args: Record<string, unknown>,
): Promise<void> {
  const name = cleanText(tool.name, 128);
  const outcome = await sdk.ask({
    requestId: ctx.requestId,
    question: `run ${name} of MCP server "${spec.name}" (${riskOf(tool.annotations)}) with ${shownArguments(args)}`,
    // "always" approves this tool of this server as configured now, whatever its arguments: a server given
    // another program or URL under the same name asks again.
    subject: JSON.stringify({
      mcp: spec.name,
      // A digest: the server's command line can be long, and its env holds secrets.
      reach: createHash("sha256").update(reachOf(spec)).digest("hex"),
      tool: tool.name.slice(0, 1_024),
    }),
    options: ["once", "always", "deny"],
  });
  if (outcome.approved) return;
  throw new SdkError({
    code: "approval_refused",
    message:
      outcome.reason === "no_client"
        ? `not run: ${name} of MCP server "${spec.name}" needs the user's approval, and nobody is connected who could give it (waiter or the dashboard)`
        : `not run: the user's approval was ${outcome.reason === "denied" ? "refused" : `not given (${outcome.reason})`}`,
  });
}

/** Of one argument's value, shown in the question; the rest is counted. */
const SHOWN_VALUE = 300;
/** Of all arguments: the question stays well within what the approval prompt shows. */
const SHOWN_ARGUMENTS = 1_500;

/**
 * The arguments as the user judges them: every name first (so none hides behind a long value the model put
 * before it), then each value, cut with how much was left out.
 */
function shownArguments(args: Record<string, unknown>): string {
  const names = Object.keys(args);
  if (names.length === 0) return "no arguments";
  const values = names.map((key) => {
    const text = JSON.stringify(args[key]) ?? "null";
    return `${key}=${text.length > SHOWN_VALUE ? `${text.slice(0, SHOWN_VALUE)}… (${text.length - SHOWN_VALUE} more characters)` : text}`;
  });
  let shown = `${names.length} argument(s) [${names.join(", ").slice(0, 300)}]:`;
  for (const [i, value] of values.entries()) {
    if (shown.length + value.length > SHOWN_ARGUMENTS) return `${shown} … (${values.length - i} more not shown)`;
    shown += ` ${value}`;
  }
  return shown;
}

/** The user's environment minus HomeAgent's own variables (its API key among them). */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("HOMEAGENT_")) env[key] = value;
  }
  return env;
}
