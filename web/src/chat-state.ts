/**
 * The chat's turns and how bus events change them: deltas append to the turn of their requestId (a `reset`
 * starts that kind of text over), tool calls appear as cards at "start" and fill in at "end", the turn's
 * agent_output or the POST's answer makes the text final, and a message the agent sends on its own
 * (agent_output with `sent`) is a turn of its own. Pure functions, so the tab only holds state.
 *
 * What the page keeps is bounded: a reply's first REPLY_KEEP_CHARS characters are shown, the rest is
 * counted and, once the reply is whole, offered as a file (a Blob, outside the script heap).
 */

import type { TranscriptEntry, TranscriptItem } from "@homeagent/sdk";
import { noteFile } from "./attached-files";

export interface ToolCard {
  id: string;
  /**
   * An approval a tool asked for, shown as a card of its own, or what the user said while the turn ran
   * (`name` who, `args` the text); default a tool call.
   */
  kind?: "approval" | "interrupt";
  name: string;
  args: string;
  status?: string;
  result?: string;
  durationMs?: number;
}

/**
 * A file sent with a message: its local name and size, and once stored, the server's name and URL. From the
 * history, its size is the text the message gave the agent ("1.2 KB").
 */
export interface Attachment {
  name: string;
  size: number | string;
  url?: string;
}

export interface Turn {
  /** The client_msg_id sent with the message (or the history entry's id). */
  id: string;
  /** The user's message; "" for a message the agent sent on its own. */
  input: string;
  ts: number;
  requestId?: string;
  text: string;
  reasoning: string;
  tools: ToolCard[];
  state: "pending" | "done" | "error";
  error?: string;
  /** Goes up whenever `text` changes other than by growing at its end: a view of it starts over. */
  epoch: number;
  /** Characters of the reply beyond REPLY_KEEP_CHARS, not kept. */
  omitted: number;
  /** The whole reply, when it was longer than what is kept. */
  whole?: Blob;
  /** Deltas may have been lost (the event stream reconnected): later ones are ignored until the final text. */
  gap?: boolean;
  attachment?: Attachment;
  /** The channel it came through, when not the dashboard's own (waiter's "cli", a timer's…): a badge. */
  channel?: string;
  /** Its transcript entry's id: where "load earlier" goes on from. */
  entryId?: number;
  /** For a message the agent sent on its own: reminder, result, notice. */
  messageKind?: string;
  /** The user started a new topic with this turn: a divider goes above it. */
  newTopic?: boolean;
  /** The request id of the turn this one is a version of (asked again or edited): they show as one. */
  versionOf?: string;
  /**
   * When this version became the one in use, when not when it was asked (`ts`): chosen back, in the daemon's
   * clock, or for what this page did, just after the other versions (the page's clock may not agree).
   */
  chosenAt?: number;
}

/** A turn as the conversation shows it: the version in use, and all the versions of it, oldest first. */
export interface ShownTurn {
  turn: Turn;
  versions: Turn[];
}

export type Payload = Record<string, unknown>;

/**
 * Characters of one reply the page keeps and renders (2 M: about 4 MB of script memory, and a DOM the
 * browser still lays out quickly; the daemon's own limit, core.llm.max_response_bytes, is 4 MiB by default).
 */
export const REPLY_KEEP_CHARS = 2_000_000;

const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v, null, 2));

/** The first `n` characters of `text`, one fewer when the cut would split a surrogate pair. */
export function head(text: string, n: number): string {
  if (text.length <= n) return text;
  const end = n > 0 && (text.charCodeAt(n - 1) & 0xfc00) === 0xd800 ? n - 1 : n;
  return text.slice(0, end);
}

/** A new turn for a message the user sends now. */
export function newTurn(id: string, input: string, file?: { name: string; size: number }): Turn {
  const turn = base(id, input, Date.now(), "pending");
  if (file) turn.attachment = { name: file.name, size: file.size };
  return turn;
}

/** A turn of the history: already final. */
export function historyTurn(id: string, ts: number, input: string, reply: string): Turn {
  const turn = base(id, input, ts, "done");
  return { ...turn, ...finalText(turn, reply) };
}

/** A transcript entry as a turn: its tool calls and approvals as cards, its channel as a badge. */
export function transcriptTurn(e: TranscriptEntry, withBadge = e.channel !== "webui"): Turn {
  const failed = e.status === "error" || e.status === "stopped" || e.status === "interrupted";
  const { input, attachment } = e.channel === "webui" ? withAttachment(e.input) : { input: e.input };
  const turn: Turn = {
    ...historyTurn(`tr-${e.id}`, e.ts, input, failed ? "" : e.reply),
    ...(attachment ? { attachment } : {}),
    entryId: e.id,
    reasoning: head(e.reasoning, REPLY_KEEP_CHARS),
    tools: e.items.map(cardOf),
    ...(e.requestId ? { requestId: e.requestId } : {}),
    ...(withBadge ? { channel: e.channel } : {}),
    ...(e.messageKind ? { messageKind: e.messageKind } : {}),
    ...(e.newTopic ? { newTopic: true } : {}),
    ...(e.replaces ? { versionOf: e.replaces } : {}),
    ...(e.chosenAt ? { chosenAt: e.chosenAt } : {}),
  };
  if (e.status === "running") turn.state = "pending";
  if (failed) Object.assign(turn, { state: "error", error: e.error ?? e.status });
  return turn;
}

/**
 * Versions of one turn (its reply asked again, its message edited: each names the one it replaced) shown as
 * one, at the place of the newest of them, the version in use showing: the latest `chosenAt`, else `ts`.
 */
export function shownTurns(turns: Turn[]): ShownTurn[] {
  if (!turns.some((t) => t.versionOf)) return turns.map((turn) => ({ turn, versions: [turn] }));
  const first = firstVersions(turns);
  const groups = new Map<string, Turn[]>();
  for (const t of turns) {
    const key = first(t);
    const group = groups.get(key);
    if (group) group.push(t);
    else groups.set(key, [t]);
  }
  return turns.flatMap((t) => {
    const versions = groups.get(first(t)) ?? [t];
    if (versions.at(-1) !== t) return [];
    const turn = versions.reduce((a, b) => (inUseSince(b) >= inUseSince(a) ? b : a));
    return [{ turn, versions }];
  });
}

/**
 * The version with this request id becomes the one in use (it was chosen back, here or elsewhere): placed
 * just after the group's latest, so the page's clock does not matter.
 */
export function chooseVersion(turns: Turn[], requestId: string): Turn[] {
  const index = turns.findIndex((t) => t.requestId === requestId);
  if (index < 0) return turns;
  const group = versionsOf(turns, turns[index]);
  const latest = Math.max(...group.map(inUseSince));
  return inUseSince(turns[index]) === latest ? turns : update(turns, index, { chosenAt: latest + 1 });
}

/** When a new version of the turn with this request id is asked now: after every version of it. */
export function nextVersionAt(turns: Turn[], requestId: string): number {
  const of = turns.find((t) => t.requestId === requestId);
  return Math.max(Date.now(), ...(of ? versionsOf(turns, of).map((t) => inUseSince(t) + 1) : []));
}

function versionsOf(turns: Turn[], turn: Turn): Turn[] {
  const first = firstVersions(turns);
  const key = first(turn);
  return turns.filter((t) => first(t) === key);
}

const inUseSince = (t: Turn): number => t.chosenAt ?? t.ts;

/** Each turn's first version (its key): `versionOf` followed back through the turns on the page. */
function firstVersions(turns: Turn[]): (t: Turn) => string {
  const byRequest = new Map(turns.flatMap((t) => (t.requestId ? [[t.requestId, t] as const] : [])));
  return (t) => {
    let at = t;
    // Each step goes to an older turn; the bound only guards against a loop in what the server sent.
    for (let step = 0; step < turns.length && at.versionOf; step++) {
      const older = byRequest.get(at.versionOf);
      // Not on the page (an older page not loaded, or expired): the versions that name it still go together.
      if (!older) return at.versionOf;
      if (older === at) break;
      at = older;
    }
    return at.requestId ?? at.id;
  };
}

function cardOf(i: TranscriptItem): ToolCard {
  if (i.type === "tool") {
    return { id: i.id, name: i.name, args: i.args, status: i.status, result: i.result, durationMs: i.durationMs };
  }
  if (i.type === "interrupt") return { id: `interrupt-${i.id}`, kind: "interrupt", name: i.source, args: i.text };
  return { id: i.id, kind: "approval", name: i.plugin, args: i.question, status: i.outcome ?? "waiting" };
}

/**
 * system `interrupt` said inside a running turn: what the user said joins that turn, where they said it.
 * `seq` names it, as the transcript does.
 */
export function applyInterrupt(turns: Turn[], p: Payload, seq: number): Turn[] {
  const index = indexOf(turns, p);
  if (index < 0 || typeof p.text !== "string") return turns;
  const card = cardOf({ type: "interrupt", id: String(seq), source: str(p.source), text: p.text });
  if (turns[index].tools.some((c) => c.id === card.id)) return turns;
  return update(turns, index, { tools: [...turns[index].tools, card] });
}

/** The text a chat with an attachment reaches the agent as starts like this (routes/chat-file.ts). */
const attachedNote = (input: string): string => `${input}\n\n[attached file: uploads/`;

/**
 * A message as its sender wrote it, and the file sent with it (a link to the stored upload): the note the
 * dashboard adds after a blank line, "[attached file: uploads/<name> (<size>, <type>)]", read as a tool
 * result's are (attached-files.ts).
 */
export function withAttachment(text: string): { input: string; attachment?: Attachment } {
  const at = text.lastIndexOf("\n\n[attached file: uploads/");
  const file = at < 0 ? undefined : noteFile(text.slice(at + 2));
  if (!file) return { input: text };
  return { input: text.slice(0, at), attachment: { name: file.name, size: file.size, url: file.url } };
}

/**
 * A page of older history (newest first) put above the turns shown: an entry shown live already (same
 * request) is not shown twice, and a running entry of this page's channel that a pending, not yet bound
 * turn of the same text is waiting for is that turn (its raw_input event has not come yet): it is bound.
 */
export function mergeHistory(turns: Turn[], entries: TranscriptEntry[]): Turn[] {
  const live = new Set(turns.flatMap((t) => (t.requestId ? [t.requestId] : [])));
  let shown = turns;
  const old = entries
    .filter((e) => {
      if (e.requestId && live.has(e.requestId)) return false;
      const own =
        e.status === "running" && e.channel === "webui"
          ? shown.findIndex(
              (t) => t.state === "pending" && !t.requestId && !t.channel && t.input === withAttachment(e.input).input,
            )
          : -1;
      if (own >= 0) shown = update(shown, own, { requestId: e.requestId });
      return own < 0;
    })
    .map((e) => transcriptTurn(e))
    .reverse();
  return [...old, ...shown];
}

/**
 * After missed events: a pending turn of another channel whose transcript entry has ended takes the entry's
 * final state (its agent_output was among the events missed).
 */
export function settleEnded(turns: Turn[], entries: TranscriptEntry[]): Turn[] {
  const ended = new Map(entries.filter((e) => e.status !== "running" && e.requestId).map((e) => [e.requestId, e]));
  return turns.map((t) => {
    const entry = t.state === "pending" && t.channel ? ended.get(t.requestId) : undefined;
    return entry ? { ...transcriptTurn(entry), id: t.id } : t;
  });
}

/**
 * raw_input. Of the webui channel: the oldest pending turn with the same text and no requestId yet is it.
 * Of another channel (waiter, a timer's follow-up…): a turn of its own, with that channel's badge.
 */
export function bindRequest(turns: Turn[], p: Payload): Turn[] {
  if (typeof p.requestId !== "string" || p.self === true || p.transient === true) return turns;
  if (p.channel !== "webui") {
    if (turns.some((t) => t.requestId === p.requestId)) return turns;
    const turn = base(`rq-${p.requestId}`, str(p.text), Date.now(), "pending");
    return [...turns, { ...turn, requestId: p.requestId, channel: str(p.channel) }];
  }
  const text = str(p.text);
  const index = turns.findIndex(
    (t) =>
      t.state === "pending" &&
      !t.requestId &&
      (t.attachment ? text.startsWith(attachedNote(t.input)) : t.input === text),
  );
  if (index < 0) return turns;
  return update(turns, index, { requestId: p.requestId });
}

export function applyDelta(turns: Turn[], p: Payload, kind: "text" | "reasoning"): Turn[] {
  const index = indexOf(turns, p);
  const turn = turns[index];
  if (turn?.state !== "pending" || turn.gap) return turns;
  if (p.reset) {
    return update(turns, index, kind === "text" ? { text: "", omitted: 0, epoch: turn.epoch + 1 } : { reasoning: "" });
  }
  const content = str(p.content);
  if (kind === "reasoning")
    return update(turns, index, { reasoning: head(turn.reasoning + content, REPLY_KEEP_CHARS) });
  const room = REPLY_KEEP_CHARS - turn.text.length;
  if (content.length <= room) return update(turns, index, { text: turn.text + content });
  const kept = head(content, Math.max(0, room));
  return update(turns, index, { text: turn.text + kept, omitted: turn.omitted + content.length - kept.length });
}

export function applyTool(turns: Turn[], p: Payload): Turn[] {
  const index = indexOf(turns, p);
  if (index < 0) return turns;
  const id = str(p.toolCallId);
  const tools = [...turns[index].tools];
  const at = tools.findIndex((c) => c.id === id);
  const card: ToolCard = at >= 0 ? { ...tools[at] } : { id, name: str(p.name), args: "" };
  if (p.phase === "start") card.args = str(p.arguments);
  else {
    card.status = str(p.status) || "done";
    card.result = str(p.result);
    if (typeof p.durationMs === "number") card.durationMs = p.durationMs;
  }
  if (at >= 0) tools[at] = card;
  else tools.push(card);
  return update(turns, index, { tools });
}

/**
 * agent_output: the end of a turn, or (with `sent`) a message the agent sent on its own, which is a turn of
 * its own (`seq` names it). A `truncated` payload was cut to fit one event: the turn keeps its streamed text
 * and waits for the POST's answer, which carries the whole reply.
 */
export function applyOutput(turns: Turn[], p: Payload, seq: number): Turn[] {
  if (p.sent === true) {
    const content = str(p.content);
    const same = turns.find((t) => t.id === `out-${seq}`);
    if (same && same.text === head(content, REPLY_KEEP_CHARS)) return turns;
    // A restarted daemon numbers its events from 1 again: the same seq with other text is another message.
    const turn = base(same ? newId() : `out-${seq}`, "", Date.now(), "done");
    return [...turns, { ...turn, ...finalText(turn, content) }];
  }
  const index = indexOf(turns, p);
  if (index < 0) return turns;
  if (p.error) return update(turns, index, { state: "error", error: str(p.content) || str(p.error), gap: false });
  if (p.truncated) return turns;
  const content = str(p.content);
  return update(turns, index, { state: "done", ...(content ? finalText(turns[index], content) : { gap: false }) });
}

/** The POST's answer: the turn's request id and the whole reply (empty: keep what streamed). */
export function finishTurn(turns: Turn[], id: string, reply: { requestId?: string; response?: string }): Turn[] {
  const index = turns.findIndex((t) => t.id === id);
  if (index < 0) return turns;
  const response = reply.response ?? "";
  const text = response ? finalText(turns[index], response) : { gap: false };
  return update(turns, index, { state: "done", requestId: reply.requestId ?? turns[index].requestId, ...text });
}

export function failTurn(turns: Turn[], id: string, error: string): Turn[] {
  const index = turns.findIndex((t) => t.id === id);
  return index < 0 ? turns : update(turns, index, { state: "error", error, gap: false });
}

/** Events were missed: the streamed text of every running turn may have a hole, so it waits for the final. */
export function markGap(turns: Turn[]): Turn[] {
  return turns.some((t) => t.state === "pending" && !t.gap)
    ? turns.map((t) => (t.state === "pending" ? { ...t, gap: true } : t))
    : turns;
}

export function update(turns: Turn[], index: number, patch: Partial<Turn>): Turn[] {
  const next = [...turns];
  next[index] = { ...next[index], ...patch };
  return next;
}

export function newId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `c${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * A final reply replacing the streamed text. The view goes on when the final text is the streamed one,
 * grown, or cut of trailing white space (replies are trimmed); any other text starts the view over.
 */
function finalText(turn: Turn, reply: string): Partial<Turn> {
  const text = head(reply, REPLY_KEEP_CHARS);
  const omitted = reply.length - text.length;
  return {
    text,
    omitted,
    whole: omitted > 0 ? new Blob([reply], { type: "text/markdown;charset=utf-8" }) : undefined,
    epoch: continues(turn.text, text) ? turn.epoch : turn.epoch + 1,
    gap: false,
  };
}

/** Whether `next` is `before` grown at its end, or cut of trailing white space. */
export function continues(before: string, next: string): boolean {
  if (next.length >= before.length) return next.startsWith(before);
  return before.startsWith(next) && before.slice(next.length).trim() === "";
}

function base(id: string, input: string, ts: number, state: Turn["state"]): Turn {
  return { id, input, ts, text: "", reasoning: "", tools: [], state, epoch: 0, omitted: 0 };
}

function indexOf(turns: Turn[], p: Payload): number {
  return turns.findIndex((t) => t.requestId !== undefined && t.requestId === p.requestId);
}
