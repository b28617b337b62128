/** Command-line flags of `waiter` and where it looks for the daemon. */
import { parseArgs } from "node:util";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { resolveDataDir } from "../daemon/paths.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { resolveHistoryPath } from "./waiter-history.js";

export const USAGE = `usage: waiter [--socket PATH] [--api-key KEY] [--json] [-c MESSAGE | --inbox]
       waiter [--socket PATH] [--api-key KEY] mcp

Talks to a running homed over its local socket.

  mcp                 serve homed's memory to another agent as an MCP server on stdin/stdout (for Claude
                      Desktop, Cursor or any MCP client: command "waiter", args ["mcp"]); read-only unless
                      plugin.mcp_server.write_tools turns writes on; logs go to stderr

  -c, --chat MESSAGE  send one message, print the reply and exit (on a terminal, approvals it asks are read
                      from the terminal; without one they are refused)
      --inbox         print the messages kept while no waiter was connected (reminders, results), and exit
      --socket PATH   daemon socket (default: $HOMEAGENT_SOCKET, $HOMEAGENT_DATA/cli.sock, ~/.homeagent/cli.sock)
      --api-key KEY   API key when homed requires one (default: $HOMEAGENT_API_KEY)
      --json          print the answers of /tools and /settings as JSON (for scripts)
  -h, --help          show this help
  -v, --version       print the version

Without -c: an interactive prompt on a terminal (/quit leaves), or one message per line of piped stdin.
The interactive prompt prints what the agent sends unprompted (reminders) as it arrives, and asks
approvals as "[approve] …" with [o]nce / [a]lways / [d]eny.
`;

export interface WaiterOptions {
  socketPath: string;
  /** The interactive history: `<data>/waiter_history` of the daemon behind the socket. */
  historyFile: string;
  apiKey?: string;
  chat?: string;
  inbox: boolean;
  /** `waiter mcp`: an MCP stdio server instead of a chat. */
  mcp: boolean;
  json: boolean;
  help: boolean;
  version: boolean;
}

export class UsageError extends HomeAgentError {
  constructor(message: string, cause?: unknown) {
    super({ code: "usage", message, cause });
  }
}

type Env = Record<string, string | undefined>;

export function parseOptions(argv: string[], env: Env = process.env): WaiterOptions {
  let positionals: string[];
  let values: {
    socket?: string;
    "api-key"?: string;
    chat?: string;
    inbox?: boolean;
    json?: boolean;
    help?: boolean;
    version?: boolean;
  };
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        socket: { type: "string" },
        "api-key": { type: "string" },
        chat: { type: "string", short: "c" },
        inbox: { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (err) {
    throw new UsageError(errorMessage(err), err);
  }
  if (values.chat !== undefined && values.chat.trim() === "") throw new UsageError("-c needs a non-empty message");
  if (values.chat !== undefined && values.inbox) throw new UsageError("-c and --inbox do not go together");
  const mcp = positionals.length === 1 && positionals[0] === "mcp";
  if (positionals.length > 0 && !mcp) throw new UsageError(`unexpected argument "${positionals.join(" ")}"`);
  if (mcp && (values.chat !== undefined || values.inbox)) throw new UsageError("mcp takes no -c or --inbox");
  return {
    socketPath: resolveSocketPath(values.socket, env),
    historyFile: resolveHistoryPath(values.socket, env),
    apiKey: values["api-key"] || env.HOMEAGENT_API_KEY || undefined,
    chat: values.chat,
    inbox: values.inbox ?? false,
    mcp,
    json: values.json ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/** The same data directory homed would use (`HOMEAGENT_DATA`, else `~/.homeagent`), unless told otherwise. */
export function resolveSocketPath(flag: string | undefined, env: Env): string {
  return flag || env.HOMEAGENT_SOCKET || cliSocketPath(resolveDataDir(undefined, env));
}
