/** The three ways `waiter` talks: one message (-c), piped lines, an interactive prompt. Each returns an exit code. */
import { clearLine, createInterface, cursorTo, type Interface } from "node:readline";
import { INTERACTIVE_LINE, STOP_LINE } from "@homeagent/cli-protocol";
import { appendHistoryLine, HISTORY_MAX } from "../daemon/input-history.js";
import { errorMessage } from "../util/errors.js";
import { ApprovalPrompts } from "./waiter-approvals.js";
import { CancelledError, ConnectionClosedError, type WaiterClient } from "./waiter-client.js";
import { forgetInHistory, forgetQuery, loadHistory } from "./waiter-history.js";
import { ReplyPrinter } from "./waiter-output.js";

const useColor = (): boolean => !process.env.NO_COLOR;

/**
 * One message. On a terminal the waiter is interactive while it waits (an approval the turn asks is read
 * from the terminal); without one it is not, so an approval is refused at once rather than waited for.
 */
export async function runOnce(
  client: WaiterClient,
  message: string,
  historyFile: string,
  json: boolean,
): Promise<number> {
  forgetInFile(historyFile, message);
  const printer = new ReplyPrinter(process.stdout, process.stderr, process.stdout.isTTY === true, useColor(), json);
  const rl = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  try {
    if (rl) {
      const prompts = interactivePrompts(client, rl);
      rl.on("line", (line) => prompts.answer(line));
      rl.on("SIGINT", () => client.cancel());
      await client.request(INTERACTIVE_LINE);
    }
    return printer.final(await client.request(message, printer.progress)) ? 0 : 1;
  } finally {
    rl?.close();
  }
}

/** `--inbox`: the messages kept while no waiter was connected, printed and removed. */
export async function runInbox(client: WaiterClient): Promise<number> {
  const printer = new ReplyPrinter(process.stdout, process.stderr, false, false);
  return printer.final(await client.request("/inbox")) ? 0 : 1;
}

/** `/stop` goes out at once (it would otherwise wait behind the very message it stops); true if it was one. */
function stopLine(client: WaiterClient, raw: string): boolean {
  if (raw.trim() !== STOP_LINE) return false;
  client.sendImmediate(STOP_LINE);
  return true;
}

/** Notices and approvals shown on `rl`'s terminal, above the line being typed. */
function interactivePrompts(client: WaiterClient, rl: Interface): ApprovalPrompts {
  const normal = rl.getPrompt();
  const prompts = new ApprovalPrompts({
    print: (text) => {
      clearLine(process.stdout, 0);
      cursorTo(process.stdout, 0);
      process.stdout.write(`${text}\n`);
      if (!client.busy || prompts.waiting) rl.prompt(true);
    },
    prompt: (prompt) => {
      rl.setPrompt(prompt ?? normal);
      if (prompt !== undefined || !client.busy) rl.prompt(true);
    },
    send: (line) => client.sendImmediate(line),
  });
  client.onPush = prompts.onPush;
  return prompts;
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
    // An approval's answer ("o", "d") is no message worth recalling.
    if (prompts.waiting) latest.shift();
    entries = latest;
    if (latest[0] !== newest) keepHistory(() => appendHistoryLine(historyFile, latest[0]));
    newest = latest[0];
  });
  // Ctrl-C while a reply is on its way cancels it (homed stops working on it); at the prompt it leaves.
  rl.on("SIGINT", () => (client.busy ? client.cancel() : rl.close()));
  // An approval's answer is read while a turn waits for it, so it cannot wait in the loop below: the line
  // listener (called before the loop's iterator) takes it, and the loop skips it.
  const prompts = interactivePrompts(client, rl);
  const answered: boolean[] = [];
  rl.on("line", (raw) => answered.push(prompts.answer(raw) || stopLine(client, raw)));
  process.stdout.write("connected to homed; /help lists commands, /quit leaves\n");
  // Made before the first await: a line typed meanwhile would otherwise reach the listener above but not
  // the loop, and every later line would be taken for the one before it.
  const lines = rl[Symbol.asyncIterator]();
  try {
    // What was kept while no waiter was connected is printed before the first prompt.
    await client.request(INTERACTIVE_LINE);
    rl.prompt();
    for await (const raw of lines) {
      if (answered.shift()) continue;
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
