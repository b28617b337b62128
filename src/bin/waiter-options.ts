/** Command-line flags of `waiter` and where it looks for the daemon. */
import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

export const USAGE = `usage: waiter [--socket PATH] [--api-key KEY] [-c MESSAGE]

Talks to a running homed over its local socket.

  -c, --chat MESSAGE  send one message, print the reply and exit
      --socket PATH   daemon socket (default: $HOMEAGENT_SOCKET, $HOMEAGENT_DATA/cli.sock, ~/.homeagent/cli.sock)
      --api-key KEY   API key when homed requires one (default: $HOMEAGENT_API_KEY)
  -h, --help          show this help
  -v, --version       print the version

Without -c: an interactive prompt on a terminal (/quit leaves), or one message per line of piped stdin.
`;

export interface WaiterOptions {
  socketPath: string;
  apiKey?: string;
  chat?: string;
  help: boolean;
  version: boolean;
}

export class UsageError extends Error {
  override name = "UsageError";
}

type Env = Record<string, string | undefined>;

export function parseOptions(argv: string[], env: Env = process.env, home: string = homedir()): WaiterOptions {
  let values: { socket?: string; "api-key"?: string; chat?: string; help?: boolean; version?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        socket: { type: "string" },
        "api-key": { type: "string" },
        chat: { type: "string", short: "c" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.chat !== undefined && values.chat.trim() === "") throw new UsageError("-c needs a non-empty message");
  return {
    socketPath: resolveSocketPath(values.socket, env, home),
    apiKey: values["api-key"] || env.HOMEAGENT_API_KEY || undefined,
    chat: values.chat,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

export function resolveSocketPath(flag: string | undefined, env: Env, home: string): string {
  if (flag) return flag;
  if (env.HOMEAGENT_SOCKET) return env.HOMEAGENT_SOCKET;
  if (env.HOMEAGENT_DATA) return join(env.HOMEAGENT_DATA, "cli.sock");
  return join(home, ".homeagent", "cli.sock");
}
