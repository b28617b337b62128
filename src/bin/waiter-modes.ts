/** The three ways `waiter` talks: one message (-c), piped lines, an interactive prompt. Each returns an exit code. */
import { createInterface, type Interface } from "node:readline";
import { appendHistoryLine, HISTORY_MAX } from "../daemon/input-history.js";
import { errorMessage } from "../util/errors.js";
import { CancelledError, ConnectionClosedError, type WaiterClient } from "./waiter-client.js";
import { forgetInHistory, forgetQuery, loadHistory } from "./waiter-history.js";
import { ReplyPrinter } from "./waiter-output.js";

const useColor = (): boolean => !process.env.NO_COLOR;

export async function runOnce(
  client: WaiterClient,
  message: string,
  historyFile: string,
  json: boolean,
): Promise<number> {
  forgetInFile(historyFile, message);
  const printer = new ReplyPrinter(process.stdout, process.stderr, process.stdout.isTTY === true, useColor(), json);
  return printer.final(await client.request(message, printer.progress)) ? 0 : 1;
}

/** One reply per input line, in order; an error reply goes to stderr and makes the exit code 1. */
export async function runPiped(client: WaiterClient, historyFile: string, json: boolean): Promise<number> {
  const printer = new ReplyPrinter(process.stdout, process.stderr, false, false, json);
  const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  const lost = stopOnIdleLoss(client, rl);
  let code = 0;
  try {
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === "") continue;
      forgetInFile(historyFile, line);
      if (!printer.final(await client.request(line))) code = 1;
    }
  } catch (err) {
    // A line read just as the connection was lost: the reason is on screen already.
    if (err instanceof ConnectionClosedError && lost()) return 1;
    throw err;
  }
  return lost() ? 1 : code;
}

/**
 * What the user forgets with the daemon leaves the history file too, also when sent with -c or piped. The
 * warning names the file, never the query: that may be the secret itself.
 */
function forgetInFile(historyFile: string, line: string): void {
  const query = forgetQuery(line);
  if (query === undefined) return;
  try {
    forgetInHistory(historyFile, query);
  } catch (err) {
    process.stderr.write(
      `cannot drop the forgotten lines from ${historyFile}: ${errorMessage(err)}; delete that file by hand\n`,
    );
  }
}

/**
 * A daemon that closes the connection while waiter waits for the user's next line (it is shutting down)
 * ends the session at once, with the daemon's reason, instead of at the next line. Returns whether it did.
 */
function stopOnIdleLoss(client: WaiterClient, rl: Interface): () => boolean {
  let lost = false;
  void client.lost.then(({ error, idle }) => {
    if (!idle || error instanceof CancelledError) return;
    lost = true;
    process.stderr.write(`\n${error.message}\n`);
    rl.close();
  });
  return () => lost;
}

export async function runInteractive(client: WaiterClient, historyFile: string): Promise<number> {
  const printer = new ReplyPrinter(process.stdout, process.stderr, true, useColor());
  let historyBroken = false;
  const keepHistory = (work: () => void) => {
    try {
      work();
    } catch (err) {
      if (!historyBroken) process.stderr.write(`cannot keep history in ${historyFile}: ${errorMessage(err)}\n`);
      historyBroken = true;
    }
  };
  // readline keeps this array as its history (the "history" event hands it back): forgetting edits it in place.
  let entries: string[] = [];
  keepHistory(() => {
    entries = loadHistory(historyFile);
  });
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: "> ",
    history: entries,
    historySize: HISTORY_MAX,
    removeHistoryDuplicates: true,
  });
  const lost = stopOnIdleLoss(client, rl);
  // Only the line just entered goes to the file: writing the whole list would bring back what the daemon
  // purged from the file meanwhile. readline reports a repeat of its newest entry too, without adding it.
  let newest = entries[0];
  rl.on("history", (latest: string[]) => {
    entries = latest;
    if (latest[0] !== newest) keepHistory(() => appendHistoryLine(historyFile, latest[0]));
    newest = latest[0];
  });
  // Ctrl-C while a reply is on its way cancels it (homed stops working on it); at the prompt it leaves.
  rl.on("SIGINT", () => (client.busy ? client.cancel() : rl.close()));
  process.stdout.write("connected to homed; /help lists commands, /quit leaves\n");
  rl.prompt();
  try {
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === "/quit" || line === "/exit") break;
      const forgotten = forgetQuery(line);
      if (forgotten !== undefined) {
        keepHistory(() => forgetInHistory(historyFile, forgotten, entries));
        newest = entries[0];
      }
      if (line !== "") printer.final(await client.request(line, printer.progress));
      rl.prompt();
    }
  } catch (err) {
    if (err instanceof CancelledError) {
      process.stderr.write("\ncancelled\n");
      return 130;
    }
    if (!(err instanceof ConnectionClosedError)) throw err;
    if (!lost()) process.stderr.write(`\n${err.message}\n`);
    return 1;
  } finally {
    rl.close();
  }
  return lost() ? 1 : 0;
}
