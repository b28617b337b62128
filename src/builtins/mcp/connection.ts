/**
 * One MCP server, kept connected: started (a program over stdio, or a URL over Streamable HTTP with the old
 * SSE transport as fallback), its tool list read (all pages, bounded) and read again when it says the list
 * changed, and — when it exits, crashes or cannot be reached — reported and started again with backoff,
 * while the other servers go on working. Nothing here blocks the daemon: start() returns at once.
 */
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { SdkError } from "@homeagent/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { boundedFetch } from "./bounded-fetch.js";
import { cleanText } from "./names.js";
import type { HttpSpec, ServerSpec, StdioSpec } from "./servers.js";
import { killMarked, MARKER_VARIABLE } from "./strays.js";

export type ServerState = "starting" | "running" | "restarting" | "disabled" | "stopped";

/** A tool as the server lists it (the fields the plugin reads). */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

export interface ConnectionStatus {
  name: string;
  transport: "stdio" | "http" | "sse";
  state: ServerState;
  /** Why it is not running, or what failed last. */
  lastError?: string;
  /** Starts after the first, since the plugin started. */
  restarts: number;
  /** Unix ms of the next try, while restarting. */
  retryAt?: number;
  /** The server's own name and version, once connected. */
  server?: string;
  /** The last lines the program wrote to stderr. */
  log: string[];
}

export interface ConnectionHooks {
  /** The server's current tools (after each connect and list change); [] when it went away. */
  tools(tools: McpTool[]): void;
  /** Its state changed (started, failed, restarting …). */
  changed(status: ConnectionStatus): void;
}

const CONNECT_TIMEOUT_MS = 30_000;
const LIST_TIMEOUT_MS = 30_000;
/** Tool pages read per list: a server that pages forever is cut off. */
const MAX_PAGES = 20;
const MAX_TOOLS_PER_SERVER = 512;
/** One JSON-RPC message from a stdio server; larger ones close the connection. */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
/** Running this long counts as healthy: the next failure starts the backoff from the beginning. */
const HEALTHY_AFTER_MS = 60_000;
const LOG_LINES = 40;
/** Answers to the Streamable HTTP POST that mean "try the SSE transport". */
const FALLBACK_STATUS = new Set([400, 404, 405, 406]);
const LOG_LINE_CHARS = 500;

export class McpConnection {
  private client?: Client;
  /** The client still connecting: close() ends it too, or its program would outlive the plugin. */
  private connecting?: Client;
  /** Marks the processes of the current stdio program (strays.ts). */
  private marker = "";
  /** A tool list is being read; `listAgain`: another change was announced meanwhile. */
  private listing = false;
  private listAgain = false;
  private state: ServerState = "starting";
  private lastError?: string;
  private restarts = 0;
  private failures = 0;
  private retryAt?: number;
  private retryTimer?: NodeJS.Timeout;
  private connectedAt = 0;
  private serverName?: string;
  private usedSse = false;
  private readonly log: string[] = [];
  private closed = false;
  /** Bumped on every connect: late events of an older client are ignored. */
  private generation = 0;

  /** The server's own credentials, never repeated in its log, errors or status. */
  private readonly secrets: string[];

  constructor(
    readonly spec: ServerSpec,
    private readonly hooks: ConnectionHooks,
    private readonly opts: { env: Record<string, string>; cwd: string; clientVersion: string },
  ) {
    const own = spec.transport === "stdio" ? spec.env : spec.headers;
    // Longest first, so a secret that contains another is masked whole.
    this.secrets = Object.values(own)
      .filter((value) => value.length >= 4)
      .sort((a, b) => b.length - a.length);
  }

  start(): void {
    if (this.spec.disabled) {
      this.setState("disabled");
      return;
    }
    void this.connect();
  }

  status(): ConnectionStatus {
    return {
      name: this.spec.name,
      transport: this.spec.transport === "stdio" ? "stdio" : this.usedSse ? "sse" : "http",
      state: this.state,
      ...(this.lastError ? { lastError: this.lastError } : {}),
      restarts: this.restarts,
      ...(this.retryAt && this.state === "restarting" ? { retryAt: this.retryAt } : {}),
      ...(this.serverName ? { server: this.serverName } : {}),
      log: [...this.log],
    };
  }

  /** Calls one of its tools; rejects when it is not connected, on timeout or when `signal` fires. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; timeoutMs: number },
  ): Promise<Record<string, unknown>> {
    const client = this.client;
    if (!client || this.state !== "running") {
      throw new SdkError({
        code: "unavailable",
        message: `MCP server "${this.spec.name}" is not connected (${this.state}${this.lastError ? `: ${this.lastError}` : ""})`,
      });
    }
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: opts.signal,
        timeout: opts.timeoutMs,
        maxTotalTimeout: opts.timeoutMs,
      })) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        throw new SdkError({
          code: "tool_timeout",
          message: `${cleanText(tool, 128)} did not answer within ${Math.round(opts.timeoutMs / 1000)} s (plugin.mcp.call_timeout) and was cancelled`,
          cause: err,
        });
      }
      throw new SdkError({ code: "tool_failed", message: this.redact(errorText(err)), cause: err });
    }
  }

  /** Stops it for good: the connection closed, a stdio server's process ended (SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closed = true;
    this.generation++;
    clearTimeout(this.retryTimer);
    const clients = [this.client, this.connecting];
    this.client = undefined;
    this.connecting = undefined;
    this.setState("stopped");
    await Promise.all(clients.map((client) => client?.close().catch(() => {})));
    await this.killStrays();
  }

  /** What of a stdio server's program is still running (a wrapper's child) is killed. */
  private async killStrays(): Promise<void> {
    if (this.spec.transport !== "stdio" || !this.marker) return;
    const killed = await killMarked(this.marker);
    if (killed > 0) this.note(`${killed} process(es) it left running were killed`);
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    this.setState(this.restarts === 0 && this.failures === 0 ? "starting" : "restarting");
    const client = new Client({ name: "homeagent", version: this.opts.clientVersion }, { capabilities: {} });
    this.connecting = client;
    try {
      await this.open(client);
      if (generation !== this.generation) {
        await client.close().catch(() => {});
        return;
      }
      this.connecting = undefined;
      this.client = client;
      this.connectedAt = Date.now();
      const version = client.getServerVersion();
      this.serverName = version ? cleanText(`${version.name} ${version.version}`, 120) : undefined;
      client.onclose = () => this.lost(generation, "the connection closed");
      client.onerror = (err) => this.note(`error: ${err.message}`);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.listChanged(client, generation));
      this.lastError = undefined;
      this.setState("running");
      // Through the same single reader as later changes, so a change announced meanwhile waits its turn.
      this.listChanged(client, generation);
    } catch (err) {
      if (this.connecting === client) this.connecting = undefined;
      await client.close().catch(() => {});
      this.lost(generation, errorText(err));
    }
  }

  /** A flood of list changes reads the list at most twice at a time: now, and once more after. */
  private listChanged(client: Client, generation: number): void {
    if (this.listing) {
      this.listAgain = true;
      return;
    }
    this.listing = true;
    void (async () => {
      do {
        this.listAgain = false;
        await this.readTools(client, generation);
      } while (this.listAgain && generation === this.generation);
      this.listing = false;
    })();
  }

  /** Connects `client` over the spec's transport; an HTTP server without Streamable HTTP is tried over SSE. */
  private async open(client: Client): Promise<void> {
    if (this.spec.transport === "stdio") {
      await client.connect(this.stdioTransport(this.spec), { timeout: CONNECT_TIMEOUT_MS });
      return;
    }
    const spec: HttpSpec = this.spec;
    const requestInit = { headers: spec.headers };
    const fetch = boundedFetch(MAX_MESSAGE_BYTES);
    if (!spec.sseOnly) {
      try {
        this.usedSse = false;
        await client.connect(new StreamableHTTPClientTransport(new URL(spec.url), { requestInit, fetch }), {
          timeout: CONNECT_TIMEOUT_MS,
        });
        return;
      } catch (err) {
        // A server that speaks only the old protocol answers the POST with 4xx (the spec's fallback rule);
        // a refused login or anything else is the error itself.
        if (!(err instanceof StreamableHTTPError && FALLBACK_STATUS.has(err.code ?? 0))) throw err;
        this.note(`Streamable HTTP refused (${errorText(err)}); trying SSE`);
      }
    }
    this.usedSse = true;
    await client.connect(new SSEClientTransport(new URL(spec.url), { requestInit, fetch }) as Transport, {
      timeout: CONNECT_TIMEOUT_MS,
    });
  }

  private stdioTransport(spec: StdioSpec): Transport {
    this.marker = randomUUID();
    const transport = new StdioClientTransport({
      command: spec.command,
      args: spec.args,
      env: { ...this.opts.env, ...spec.env, [MARKER_VARIABLE]: this.marker },
      cwd: spec.cwd ?? this.opts.cwd,
      stderr: "pipe",
      maxBufferSize: MAX_MESSAGE_BYTES,
    });
    const stderr = transport.stderr as Readable | null;
    let partial = "";
    stderr?.setEncoding("utf8");
    stderr?.on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n");
      // Kept a secret's length past the cut, so a credential across it is still masked whole.
      partial = (lines.pop() ?? "").slice(0, LOG_LINE_CHARS + (this.secrets[0]?.length ?? 0));
      for (const line of lines) this.note(line);
    });
    return transport;
  }

  private async readTools(client: Client, generation: number): Promise<void> {
    try {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES && tools.length < MAX_TOOLS_PER_SERVER; page++) {
        const listed = await client.listTools(cursor ? { cursor } : {}, { timeout: LIST_TIMEOUT_MS });
        tools.push(...(listed.tools as McpTool[]));
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      if (generation !== this.generation) return;
      if (tools.length > MAX_TOOLS_PER_SERVER || cursor) {
        this.note(
          `the server lists more than ${MAX_TOOLS_PER_SERVER} tools; the first ${MAX_TOOLS_PER_SERVER} are used`,
        );
      }
      this.hooks.tools(tools.slice(0, MAX_TOOLS_PER_SERVER));
    } catch (err) {
      if (generation !== this.generation) return;
      this.lastError = this.redact(`its tool list could not be read: ${errorText(err)}`);
      this.hooks.changed(this.status());
    }
  }

  /** The connection of `generation` is gone: its tools go, and it is started again after a backoff. */
  private lost(generation: number, why: string): void {
    if (generation !== this.generation || this.closed) return;
    this.generation++;
    this.client = undefined;
    const tail = this.log.at(-1);
    this.lastError = this.redact(this.spec.transport === "stdio" && tail ? `${why} (its last words: ${tail})` : why);
    void this.killStrays();
    if (this.connectedAt && Date.now() - this.connectedAt > HEALTHY_AFTER_MS) this.failures = 0;
    this.connectedAt = 0;
    const delay = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)];
    this.failures++;
    this.retryAt = Date.now() + delay;
    this.hooks.tools([]);
    this.setState("restarting");
    this.retryTimer = setTimeout(() => {
      this.restarts++;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  /** `text` with the server's own credentials masked. */
  redact(text: string): string {
    return this.secrets.reduce((out, secret) => out.replaceAll(secret, "****"), text);
  }

  private note(line: string): void {
    const clean = cleanText(this.redact(line), LOG_LINE_CHARS);
    if (!clean) return;
    this.log.push(clean);
    if (this.log.length > LOG_LINES) this.log.shift();
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.hooks.changed(this.status());
  }
}

function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return cleanText(message, 500) || "unknown error";
}
