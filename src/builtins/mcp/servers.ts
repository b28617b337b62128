/**
 * The MCP servers as the user configured them in `plugin.mcp.servers`: an object of servers by name, in the
 * shape Claude Desktop, Cursor and most MCP docs use (`{"fs": {"command": "npx", "args": […], "env": {…}}}`
 * or `{"remote": {"url": "…", "headers": {…}}}`), so a snippet from a server's README pastes as is — the
 * `{"mcpServers": …}` wrapper around it included. The JSON Schema here refuses a bad list when it is
 * written; `parseServers` turns a stored value into specs the plugin can start.
 */

/** How many servers one daemon talks to; each is a process or a connection. */
export const MAX_SERVERS = 32;
const MAX_ARGS = 256;
const MAX_VARS = 128;

const NAME = "^[A-Za-z0-9_-]{1,32}$";
const stringMap = (what: string) => ({
  type: "object",
  maxProperties: MAX_VARS,
  propertyNames: { pattern: "^[^\\u0000-\\u001f=]{1,256}$" },
  additionalProperties: { type: "string", maxLength: 8192 },
  description: what,
});

const SERVER_SCHEMA = {
  type: "object",
  properties: {
    command: { type: "string", minLength: 1, maxLength: 4096 },
    args: { type: "array", maxItems: MAX_ARGS, items: { type: "string", maxLength: 8192 } },
    env: stringMap("environment variables (secrets)"),
    cwd: { type: "string", minLength: 1, maxLength: 4096 },
    url: { type: "string", pattern: "^https?://", maxLength: 2048 },
    headers: stringMap("HTTP headers (secrets)"),
    type: { enum: ["stdio", "http", "streamable-http", "sse"] },
    disabled: { type: "boolean" },
    disabledTools: { type: "array", maxItems: 1024, items: { type: "string", maxLength: 256 } },
  },
  additionalProperties: false,
  // Exactly one way to reach it: a program to start, or a URL.
  if: { required: ["url"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, not a thenable
  then: { properties: { command: false, args: false, env: false, cwd: false } },
  else: { required: ["command"], properties: { headers: false } },
};

/**
 * Servers by name. Claude Desktop's `{"mcpServers": {…}}` is the same object one level down: its key is
 * read as a group of servers, not as a server, and then nothing may stand beside it.
 */
export const SERVERS_SCHEMA = {
  type: "object",
  maxProperties: MAX_SERVERS,
  propertyNames: { pattern: NAME },
  properties: {
    mcpServers: {
      type: "object",
      maxProperties: MAX_SERVERS,
      propertyNames: { pattern: NAME },
      additionalProperties: SERVER_SCHEMA,
    },
  },
  additionalProperties: SERVER_SCHEMA,
  if: { required: ["mcpServers"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
  then: { properties: { mcpServers: true }, additionalProperties: false },
};

interface Common {
  name: string;
  disabled: boolean;
  disabledTools: ReadonlySet<string>;
}

export interface StdioSpec extends Common {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface HttpSpec extends Common {
  transport: "http";
  url: string;
  headers: Record<string, string>;
  /** Configured as "sse": the old transport only, no Streamable HTTP attempt. */
  sseOnly: boolean;
}

export type ServerSpec = StdioSpec | HttpSpec;

type RawServer = {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  type?: string;
  disabled?: boolean;
  disabledTools?: string[];
};

/** The stored value (validated when written) as server specs; "" or "{}" is none. */
export function parseServers(value: string | undefined): ServerSpec[] {
  if (!value) return [];
  const root = JSON.parse(value) as Record<string, RawServer> & { mcpServers?: Record<string, RawServer> };
  return Object.entries(root.mcpServers ?? root)
    .slice(0, MAX_SERVERS)
    .map(([name, raw]) => specOf(name, raw));
}

function specOf(name: string, raw: RawServer): ServerSpec {
  const common = { name, disabled: raw.disabled === true, disabledTools: new Set(raw.disabledTools ?? []) };
  if (raw.url !== undefined) {
    return { ...common, transport: "http", url: raw.url, headers: raw.headers ?? {}, sseOnly: raw.type === "sse" };
  }
  return {
    ...common,
    transport: "stdio",
    command: raw.command ?? "",
    args: raw.args ?? [],
    env: raw.env ?? {},
    ...(raw.cwd ? { cwd: raw.cwd } : {}),
  };
}

/** A fingerprint of what it takes to reach the server: a server whose fingerprint changed is restarted. */
export function reachOf(spec: ServerSpec): string {
  const { disabledTools: _tools, ...rest } = spec;
  return JSON.stringify(rest);
}
