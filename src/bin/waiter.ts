#!/usr/bin/env node
/**
 * waiter: the terminal client of homed. It connects to the daemon's cli socket and speaks the line
 * protocol of @homeagent/cli-protocol.
 */
import { errorMessage } from "../util/errors.js";
import { VERSION } from "../version.js";
import { connectAuthenticated, DaemonNotRunningError } from "./waiter-client.js";
import { DaemonLink } from "./waiter-link.js";
import { runMcp } from "./waiter-mcp.js";
import { runInbox, runInteractive, runOnce, runPiped } from "./waiter-modes.js";
import { parseOptions, USAGE, UsageError } from "./waiter-options.js";

const EXIT_NOT_RUNNING = 2;
const EXIT_USAGE = 64;

async function main(argv: string[]): Promise<number> {
  const opts = parseOptions(argv);
  if (opts.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (opts.version) {
    process.stdout.write(`waiter ${VERSION}\n`);
    return 0;
  }
  if (opts.mcp) return await runMcp(new DaemonLink(() => connectAuthenticated(opts.socketPath, opts.apiKey)));
  const client = await connectAuthenticated(opts.socketPath, opts.apiKey);
  try {
    if (opts.inbox) return await runInbox(client);
    if (opts.chat !== undefined) return await runOnce(client, opts.chat, opts.historyFile, opts.json);
    if (!process.stdin.isTTY) return await runPiped(client, opts.historyFile, opts.json);
    return await runInteractive(client, opts.historyFile);
  } finally {
    client.close();
  }
}

function exitCodeFor(err: unknown): number {
  if (err instanceof DaemonNotRunningError) return EXIT_NOT_RUNNING;
  if (err instanceof UsageError) return EXIT_USAGE;
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${errorMessage(err)}\n`);
    if (err instanceof UsageError) process.stderr.write(USAGE);
    process.exitCode = exitCodeFor(err);
  },
);
