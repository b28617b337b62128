/**
 * The MCP server list as the dashboard edits it: the value of `plugin.mcp.servers` as the settings list
 * shows it (secrets masked) read into servers by name, changed one server at a time, and written whole in
 * the shape it was stored in (bare, or Claude Desktop's `{"mcpServers": …}`), so each masked secret the user
 * did not retype sits where the daemon looks for it and the stored one is kept. A pasted snippet is read
 * here too; the daemon's JSON Schema judges the rest when the list is saved. Pure functions, tested alone.
 */

export interface McpServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  type?: string;
  disabled?: boolean;
  disabledTools?: string[];
}

export type McpServers = Record<string, McpServerConfig>;

export interface McpConfig {
  /** Stored as `{"mcpServers": …}`: written back the same way. */
  wrapped: boolean;
  servers: McpServers;
}

/** A name as the daemon's schema allows it. */
export const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The listed value as servers; null when it is not a server list (the page then offers no edits). An empty
 * list is written as Claude Desktop writes it, `{"mcpServers": …}`.
 */
export function readConfig(value: string): McpConfig | null {
  if (value.trim() === "") return { wrapped: true, servers: {} };
  const read = readServers(value);
  if ("problem" in read) return null;
  return Object.keys(read.servers).length === 0 ? { ...read, wrapped: true } : read;
}

export function writeConfig(config: McpConfig): string {
  return JSON.stringify(config.wrapped ? { mcpServers: config.servers } : config.servers);
}

export type Pasted = McpConfig | { problem: "not_json" | "not_servers" | "empty" };

/** A snippet as pasted: `{"mcpServers": {name: server}}` or `{name: server}`, with at least one server. */
export function parsePasted(text: string): Pasted {
  const read = readServers(text);
  if ("servers" in read && Object.keys(read.servers).length === 0) return { problem: "empty" };
  return read;
}

function readServers(text: string): McpConfig | { problem: "not_json" | "not_servers" } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: "not_json" };
  }
  if (!isObject(value)) return { problem: "not_servers" };
  const wrapped = Object.hasOwn(value, "mcpServers");
  const servers = wrapped ? value.mcpServers : value;
  if (!isObject(servers) || !Object.values(servers).every(isObject)) return { problem: "not_servers" };
  return { wrapped, servers: servers as McpServers };
}

/** The names of `servers` the list has already. */
export function clashes(config: McpConfig, servers: McpServers): string[] {
  return Object.keys(servers).filter((name) => Object.hasOwn(config.servers, name));
}

/** The list with `server` under `name` (added, or replacing the one there), or without it when undefined. */
export function withServer(config: McpConfig, name: string, server: McpServerConfig | undefined): McpConfig {
  const servers = Object.fromEntries(Object.entries(config.servers).filter(([n]) => n !== name));
  if (server) servers[name] = server;
  return { ...config, servers };
}

export function withServers(config: McpConfig, added: McpServers): McpConfig {
  return { ...config, servers: { ...config.servers, ...added } };
}

/** The server switched off or on; "on" leaves no `disabled` key behind. */
export function withDisabled(server: McpServerConfig, disabled: boolean): McpServerConfig {
  const { disabled: _old, ...rest } = server;
  return disabled ? { ...rest, disabled: true } : rest;
}

/** One of its tools (by the server's own name for it) switched off or on. */
export function withTool(server: McpServerConfig, tool: string, enabled: boolean): McpServerConfig {
  const { disabledTools = [], ...rest } = server;
  const next = enabled ? disabledTools.filter((t) => t !== tool) : [...new Set([...disabledTools, tool])];
  return next.length ? { ...rest, disabledTools: next } : rest;
}

/** A name and value of `env` or `headers`; `stored` is the mask listed for a saved value, kept while `value` is "". */
export interface Row {
  key: string;
  value: string;
  stored?: string;
}

export interface ServerForm {
  name: string;
  transport: "program" | "url";
  command: string;
  /** One argument per line. */
  args: string;
  cwd: string;
  env: Row[];
  url: string;
  headers: Row[];
}

export function formOf(name: string, server: McpServerConfig = {}): ServerForm {
  const rows = (map: Record<string, string> = {}): Row[] =>
    Object.entries(map).map(([key, stored]) => ({ key, value: "", stored }));
  return {
    name,
    transport: server.url !== undefined ? "url" : "program",
    command: server.command ?? "",
    args: (server.args ?? []).join("\n"),
    cwd: server.cwd ?? "",
    env: rows(server.env),
    url: server.url ?? "",
    headers: rows(server.headers),
  };
}

export type FormProblem = "name" | "name_taken" | "command" | "url" | "row_name" | "row_twice";

/** What must be fixed before the form can be saved; `taken`: the names of the other servers. */
export function formProblem(form: ServerForm, taken: string[]): FormProblem | undefined {
  if (!SERVER_NAME.test(form.name)) return "name";
  if (taken.includes(form.name)) return "name_taken";
  if (form.transport === "program" && form.command.trim() === "") return "command";
  if (form.transport === "url" && !/^https?:\/\//.test(form.url.trim())) return "url";
  const rows = form.transport === "program" ? form.env : form.headers;
  const keys = rows.map((r) => r.key.trim());
  if (keys.some((k) => k === "")) return "row_name";
  if (new Set(keys).size !== keys.length) return "row_twice";
  return undefined;
}

/**
 * The server the form describes; what the form does not show (switched off, tools switched off, a
 * transport `type`) is kept from `previous`.
 */
export function serverOf(form: ServerForm, previous: McpServerConfig = {}): McpServerConfig {
  const kept: McpServerConfig = {
    ...(previous.disabled ? { disabled: true } : {}),
    ...(previous.disabledTools?.length ? { disabledTools: previous.disabledTools } : {}),
  };
  const map = (rows: Row[]) =>
    Object.fromEntries(rows.map((r) => [r.key.trim(), r.value !== "" ? r.value : (r.stored ?? "")]));
  if (form.transport === "url") {
    const type = previous.type !== undefined && previous.type !== "stdio" ? { type: previous.type } : {};
    return { url: form.url.trim(), ...(form.headers.length ? { headers: map(form.headers) } : {}), ...type, ...kept };
  }
  const args = form.args.split("\n").map((line) => line.replace(/\r$/, ""));
  return {
    command: form.command.trim(),
    ...(args.some((a) => a !== "") ? { args: args.filter((a) => a !== "") } : {}),
    ...(form.env.length ? { env: map(form.env) } : {}),
    ...(form.cwd.trim() ? { cwd: form.cwd.trim() } : {}),
    ...(previous.type === "stdio" ? { type: "stdio" } : {}),
    ...kept,
  };
}
