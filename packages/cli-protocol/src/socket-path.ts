/** Where the cli socket lives, so the daemon that listens and the client that connects never disagree. */
import { join } from "node:path";

export const CLI_SOCKET_NAME = "cli.sock";

/** The cli socket of the daemon whose data directory is `dataDir`. */
export function cliSocketPath(dataDir: string): string {
  return join(dataDir, CLI_SOCKET_NAME);
}
