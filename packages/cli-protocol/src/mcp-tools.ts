/**
 * HomeAgent's memory as MCP tools: which tools are offered (the kernel's own definitions, so their schemas
 * are the kernel's), and a call of one, for both transports (`waiter mcp` through the cli plugin, /mcp on the
 * web server). It lives beside the cli frames that carry it because the two built-ins serving it may not
 * import each other, and it needs nothing but the public SDK: kernel tools run through `runTool` (which
 * checks the arguments against the tool's schema, within 30 s), `chat` is a turn through `injectInputSync`.
 */
import type { PluginSDK } from "@homeagent/sdk";
import { SdkError } from "@homeagent/sdk";
import {
  MCP_CHAT_TIMEOUT_KEY,
  MCP_READ_TOOLS,
  MCP_WRITE_TOOLS,
  MCP_WRITE_TOOLS_KEY,
  type McpWriteTool,
  mcpSettings,
} from "./mcp-settings.js";

export type McpHost = Pick<PluginSDK, "kernel" | "runTool" | "injectInputSync" | "config" | "docMemory">;

/** A tool as MCP's tools/list gives it. */
export interface McpToolDef {
  name: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
}

/** MCP's tools/call result: text, with `isError` when the call failed (the calling model reads why). */
export interface McpToolResult {
  content: Array<{ type: "text"; text: string }>;
  isError?: boolean;
}

/** Who a `chat` turn comes from, and what cancels it (the client went away). */
export interface McpCaller {
  source: string;
  channel: string;
  signal?: AbortSignal;
}

/** Characters of one result an MCP client gets; the rest is cut, with a note saying how much. */
export const MAX_MCP_RESULT_CHARS = 50_000;

const CHAT_TOOL: McpToolDef = {
  name: "chat",
  description:
    "Send a message to the user's HomeAgent agent, as the user would, and get its reply. The agent answers " +
    "with its own memory and tools, and remembers the exchange.",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string", description: "What to say to the agent." } },
    required: ["message"],
  },
};

const MAX_DOCS = 20;

/**
 * The kernel's doc_query moves the documents it finds back into the agent's context window (the store
 * gives them up): for another agent, documents are searched without taking them, under the same name.
 */
const DOC_QUERY_TOOL: McpToolDef = {
  name: "doc_query",
  description:
    "Search the user's HomeAgent memory documents (archived conversations and saved notes) and read the best " +
    "matches: their text, summary and dates. Only reads.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "What to look for, in any language." },
      top_k: { type: "integer", description: `How many documents (1–${MAX_DOCS}, default 5).` },
    },
    required: ["query"],
  },
};

/** The tools offered now: the read tools, and the write tools the user turned on. */
export function mcpTools(host: Pick<McpHost, "kernel" | "config">): McpToolDef[] {
  const { writeTools } = mcpSettings(host.config);
  const offered = new Set<string>([...MCP_READ_TOOLS, ...writeTools]);
  offered.delete(DOC_QUERY_TOOL.name);
  const tools: McpToolDef[] = host.kernel
    .tools()
    .filter((t) => offered.has(t.name))
    .map((t) => ({ name: t.name, description: t.description, inputSchema: { ...t.parameters, type: "object" } }));
  return [DOC_QUERY_TOOL, ...tools, ...(writeTools.has("chat") ? [CHAT_TOOL] : [])];
}

/** Runs one tool for an MCP client; every failure is a result with `isError`, never a throw. */
export async function callMcpTool(
  host: McpHost,
  name: string,
  args: Record<string, unknown>,
  caller: McpCaller,
): Promise<McpToolResult> {
  const settings = mcpSettings(host.config);
  try {
    if (!isOffered(name, settings.writeTools)) throw notOffered(name);
    if (name === "chat") return textResult(await chat(host, args, caller, settings.chatTimeoutMs));
    if (name === DOC_QUERY_TOOL.name) return textResult(await docQuery(host, args));
    return textResult(await runKernelTool(host, name, args));
  } catch (err) {
    return { ...textResult(err instanceof Error ? err.message : String(err)), isError: true };
  }
}

/** `text` cut to `max` characters (never inside a surrogate pair), with a note of how much was left out. */
export function cutResult(text: string, max = MAX_MCP_RESULT_CHARS): string {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}\n[cut: ${text.length - end} more characters not shown (at most ${max} per result); ask for less, e.g. a narrower query or a smaller top_k]`;
}

function isOffered(name: string, writeTools: ReadonlySet<McpWriteTool>): boolean {
  return (MCP_READ_TOOLS as readonly string[]).includes(name) || writeTools.has(name as McpWriteTool);
}

function notOffered(name: string): SdkError {
  const write = (MCP_WRITE_TOOLS as readonly string[]).includes(name);
  return new SdkError({
    code: "not_found",
    message: write
      ? `${name} is turned off for MCP clients: the user turns it on by adding it to ${MCP_WRITE_TOOLS_KEY} (e.g. /settings set ${MCP_WRITE_TOOLS_KEY} ${name})`
      : `there is no MCP tool "${name.slice(0, 100)}" here: tools/list names the ones offered`,
  });
}

/** A read or write tool of the kernel; one not registered (memory still starting) is said so. */
async function runKernelTool(host: McpHost, name: string, args: Record<string, unknown>): Promise<string> {
  try {
    return await host.runTool(name, args);
  } catch (err) {
    if ((err as { code?: unknown }).code !== "not_found") throw err;
    throw new SdkError({
      code: "unavailable",
      message: `${name} is not available right now (memory or the knowledge base is not running); try again once homed has finished starting`,
      cause: err,
    });
  }
}

/** Memory documents that match, read without taking them out of the store. */
async function docQuery(host: McpHost, args: Record<string, unknown>): Promise<string> {
  const query = args.query;
  if (typeof query !== "string" || query.trim() === "") {
    throw new SdkError({ code: "invalid_argument", message: '"query" is required: what to look for' });
  }
  const topK = args.top_k === undefined ? 5 : Number(args.top_k);
  if (!Number.isInteger(topK) || topK < 1 || topK > MAX_DOCS) {
    throw new SdkError({ code: "invalid_argument", message: `"top_k" is a whole number from 1 to ${MAX_DOCS}` });
  }
  const docs = await host.docMemory.query(query, topK);
  return JSON.stringify({
    count: docs.length,
    documents: docs.map(({ id, summary, content, source, tsStart, tsEnd, createdAt }) => ({
      id,
      summary,
      content,
      source,
      from: new Date(tsStart || createdAt).toISOString(),
      to: new Date(tsEnd || createdAt).toISOString(),
    })),
  });
}

/** A turn through the agent, stopped when the client goes away or after `plugin.mcp_server.chat_timeout`. */
async function chat(
  host: McpHost,
  args: Record<string, unknown>,
  caller: McpCaller,
  timeoutMs: number,
): Promise<string> {
  const message = args.message;
  if (typeof message !== "string" || message.trim() === "") {
    throw new SdkError({ code: "invalid_argument", message: '"message" is required: the text to send to the agent' });
  }
  const timedOut = new AbortController();
  const timer = setTimeout(() => timedOut.abort(), timeoutMs);
  const signal = caller.signal ? AbortSignal.any([caller.signal, timedOut.signal]) : timedOut.signal;
  try {
    // The kernel answers a cancelled turn at once (InjectOptions.signal), with an error.
    const reply = await host.injectInputSync(caller.source, caller.channel, message, { signal });
    if (reply.error === undefined) return reply.content;
    if (caller.signal?.aborted) throw reasonOf(caller.signal);
    if (timedOut.signal.aborted) {
      throw new SdkError({
        code: "chat_timeout",
        message: `the agent did not answer within ${timeoutMs / 1000} s and was stopped (${MCP_CHAT_TIMEOUT_KEY}); ask something shorter or try again`,
      });
    }
    throw new SdkError({ code: "chat_failed", message: reply.error });
  } finally {
    clearTimeout(timer);
  }
}

function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new SdkError({ code: "cancelled", message: String(signal.reason) });
}

function textResult(text: string): McpToolResult {
  return { content: [{ type: "text", text: cutResult(text) }] };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
