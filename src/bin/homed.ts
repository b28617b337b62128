#!/usr/bin/env node
/**
 * homed: the HomeAgent daemon. `homed [--data DIR]`; logs go to stderr; SIGINT/SIGTERM stop it cleanly.
 * `homed --reset-credentials` makes a new admin password and API key and exits.
 */
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { Auth } from "../auth/auth.js";
import { type Daemon, startDaemon } from "../daemon/bootstrap.js";
import { prepareDataDir, resolveDataDir } from "../daemon/paths.js";
import { errorMessage } from "../util/errors.js";
import { VERSION } from "../version.js";

const USAGE = `usage: homed [--data DIR] [--reset-credentials]

  --data DIR            data directory (default: $HOMEAGENT_DATA or ~/.homeagent)
  --reset-credentials   make a new admin password and API key, write them to DIR/credentials, exit
  --version             print the version
  --help                this text

Configure an LLM with HOMEAGENT_LLM_BASE_URL, HOMEAGENT_LLM_API_KEY and HOMEAGENT_LLM_MODEL,
then talk to the daemon with \`waiter\`.`;

/**
 * A daemon runs for months, so memory matters more than the last bit of throughput. By default V8 lets the
 * old generation grow to several times what is live before collecting (RSS climbed ≈ 40 MB over the first
 * few thousand turns, then stayed); a fixed growing factor of 1.2 keeps it near what is live, for a
 * collection cost that does not show in the round trip (`npm run bench:soak`).
 */
setFlagsFromString("--heap-growing-percent=20");

async function main(): Promise<void> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse();
  } catch (err) {
    process.stderr.write(`homed: ${errorMessage(err)}\n${USAGE}\n`);
    process.exit(2);
  }
  if (args.values.help) return void process.stdout.write(`${USAGE}\n`);
  if (args.values.version) return void process.stdout.write(`homed ${VERSION}\n`);
  if (args.values["reset-credentials"]) return resetCredentials(resolveDataDir(args.values.data));

  // Signals are handled from the start: one that arrives while the daemon is starting stops it as soon
  // as it is up, instead of killing it halfway through (Node's default for SIGTERM).
  let daemon: Daemon | null = null;
  let pending: string | null = null;
  let stopping = false;
  const stop = (signal: string) => {
    if (!daemon) {
      pending = signal;
      return;
    }
    const running = daemon;
    if (stopping) {
      running.log.warn(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    running.log.info(`${signal} received`);
    running.stop().then(
      () => process.exit(0),
      (err) => {
        running.log.error(`unclean stop: ${describe(err)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));

  daemon = await startDaemon({ dataDir: resolveDataDir(args.values.data) });
  const started = daemon;
  process.on("unhandledRejection", (err) => started.log.error(`unhandled rejection: ${describe(err)}`));
  process.on("uncaughtException", (err) => started.log.error(`uncaught exception: ${describe(err)}`));
  if (pending) stop(pending);
}

function parse() {
  return parseArgs({
    options: {
      data: { type: "string" },
      "reset-credentials": { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
    strict: true,
  });
}

/** Works beside a running daemon too: it re-reads the credentials on every check. */
async function resetCredentials(dataDir: string): Promise<void> {
  process.umask(0o077);
  const { paths } = prepareDataDir(dataDir);
  const auth = Auth.open({ dataDir: paths.root, configDb: paths.configDb });
  try {
    const file = await auth.resetCredentials();
    process.stdout.write(`new admin password and API key written to ${file}\n`);
  } finally {
    auth.close();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

main().catch((err) => {
  process.stderr.write(`homed: failed to start: ${errorMessage(err)}\n`);
  process.exit(1);
});
