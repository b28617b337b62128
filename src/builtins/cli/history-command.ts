/**
 * `/history [n]`: the last turns of the terminal's own channel as they happened — what was asked, each tool
 * call and approval, the reply or the error — and the messages sent to it on its own, from the transcript
 * (not from memory, which keeps only what it judged worth keeping). Oldest first, like a scroll-back.
 */
import type { FinalFrame } from "@homeagent/cli-protocol";
import type { PluginSDK, TranscriptEntry, TranscriptItem } from "@homeagent/sdk";
import { type DateFormat, userDate } from "./user-date.js";

export const HISTORY_HELP = [
  "/history [n]                  the last n turns of this terminal (default 10, at most 50)",
];

const DEFAULT_TURNS = 10;
const MAX_TURNS = 50;
/** A tool result or a reply is shown up to this many characters; the rest is said, not printed. */
const SHOWN_CHARS = 2_000;
/** A tool call's arguments or an approval's question: one line's worth. */
const ARGS_CHARS = 200;
/** C0 and C1 controls and DEL (newline and tab are kept as they are). */
const CONTROL = /\p{Cc}/gu;

export async function historyCommand(sdk: PluginSDK, args: string): Promise<FinalFrame> {
  const given = args.trim();
  const n = given === "" ? DEFAULT_TURNS : Number(given);
  if (!Number.isInteger(n) || n < 1 || n > MAX_TURNS) {
    return { type: "error", error: `usage: /history [n], n from 1 to ${MAX_TURNS}` };
  }
  const page = await sdk.transcripts.list({ channel: "cli", limit: n });
  if (page.items.length === 0) return { type: "response", content: "nothing was said here yet" };
  const date = userDate(sdk);
  const blocks = page.items.reverse().map((e) => entryText(e, date));
  if (page.more) blocks.unshift(`(earlier turns: /history ${Math.min(MAX_TURNS, n + 10)})`);
  return { type: "response", content: blocks.join("\n\n") };
}

function entryText(e: TranscriptEntry, date: DateFormat): string {
  const when = date(e.ts);
  if (e.kind === "message") return `── ${when}  ${e.messageKind ?? "message"}\n» ${shown(e.reply)}`;
  const lines = [`── ${when}${e.noMemory ? "  (not remembered)" : ""}`, `> ${shown(e.input)}`];
  if (e.reasoning) lines.push(`  (reasoning: ${e.reasoning.length} characters)`);
  for (const item of e.items) lines.push(`  ${itemText(item)}`);
  if (e.status === "done") lines.push(shown(e.reply));
  else if (e.status === "running") lines.push("(still being answered)");
  else lines.push(`[${e.status}] ${e.error ?? ""}`.trim());
  return lines.join("\n");
}

function itemText(i: TranscriptItem): string {
  if (i.type === "interrupt") return `> (while it was answering) ${shown(i.text, ARGS_CHARS)}`;
  if (i.type === "approval") {
    return `? ${i.plugin}: ${shown(i.question, ARGS_CHARS)} → ${i.outcome ?? "waiting"}${i.by ? ` (${i.by})` : ""}`;
  }
  const took = i.durationMs === undefined ? "" : `, ${i.durationMs} ms`;
  return `⚙ ${i.name} ${shown(i.args, ARGS_CHARS)} → ${i.status ?? "running"}${took}`;
}

/**
 * `text` as the terminal may show it: cut at `max` characters (the rest counted), and control characters
 * (an escape sequence a tool's result or a model wrote) made visible instead of acted on.
 */
function shown(text: string, max = SHOWN_CHARS): string {
  const cut = text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
  return cut.replace(CONTROL, (c) =>
    c === "\n" || c === "\t" ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
