/**
 * The chat outlives its tab: the turns and the event subscriptions live here, so switching to another tab
 * while a reply streams loses nothing. The Chat tab reads the turns with useChat().
 */

import type { TranscriptEntry } from "@homeagent/sdk";
import { useEffect, useState } from "preact/hooks";
import { api, get, post } from "./api";
import {
  applyDelta,
  applyInterrupt,
  applyOutput,
  applyTool,
  bindRequest,
  chooseVersion,
  failTurn,
  finishTurn,
  markGap,
  mergeHistory,
  newId,
  newTurn,
  nextVersionAt,
  type ShownTurn,
  settleEnded,
  type Turn,
  transcriptTurn,
  update,
} from "./chat-state";
import { errorText } from "./error-text";
import { events } from "./events";
import { pageMessages } from "./i18n";
import { notifyIfHidden } from "./notify";

interface TranscriptPage {
  items: TranscriptEntry[];
  more: boolean;
}

/** Entries a page of history brings. */
const PAGE = 50;

interface Reply {
  requestId?: string;
  response?: string;
}

/** POST /api/v1/chat/file's answer: the stored file, and the reply when a message went with it. */
interface FileAnswer {
  file: { name: string; url: string; size: number };
  reply?: Reply;
}

let turns: Turn[] = [];
let historyLoaded = false;
/** Whether the transcript holds entries older than the ones shown. */
let olderLeft = false;
let subscribed = false;
let notifying = false;
const watchers = new Set<(turns: Turn[]) => void>();

/**
 * The turns change at once; the tab hears of it once per animation frame. Deltas come in bursts (a
 * hundred in one task is common for a long reply), and re-rendering the tab for each would be most of
 * the page's work.
 */
function set(next: Turn[]): void {
  if (next === turns) return;
  turns = next;
  if (notifying) return;
  notifying = true;
  requestAnimationFrame(() => {
    notifying = false;
    for (const watch of watchers) watch(turns);
  });
}

function subscribe(): void {
  if (subscribed) return;
  subscribed = true;
  events.on("raw_input", (e) => set(bindRequest(turns, e.payload)));
  events.on("content_delta", (e) => set(applyDelta(turns, e.payload, "text")));
  events.on("reasoning_delta", (e) => set(applyDelta(turns, e.payload, "reasoning")));
  events.on("tool_call", (e) => set(applyTool(turns, e.payload)));
  events.on("agent_output", (e) => set(applyOutput(turns, e.payload, e.seq)));
  events.on("system", (e) => {
    if (e.source !== "kernel") return;
    if (e.payload.kind === "version_chosen" && typeof e.payload.requestId === "string") {
      set(chooseVersion(turns, e.payload.requestId));
    } else if (e.payload.kind === "interrupt") set(applyInterrupt(turns, e.payload, e.seq));
  });
  events.onMissed(() => {
    set(markGap(turns));
    void settleFromTranscript().catch(() => undefined);
  });
}

/**
 * Events were missed: a turn of another channel may have ended meanwhile (its agent_output is gone), and
 * only its transcript entry can say so. Pending turns whose entry has ended take the entry's final state.
 */
async function settleFromTranscript(): Promise<void> {
  if (!turns.some((t) => t.state === "pending" && t.channel)) return;
  const page = await get<TranscriptPage>(`/api/v1/transcripts?limit=${PAGE}`);
  set(settleEnded(turns, page.items));
}

/** The newest page of the transcript, every channel's turns, under the turns already shown. */
export async function loadHistory(): Promise<void> {
  if (historyLoaded) return;
  const page = await get<TranscriptPage>(`/api/v1/transcripts?limit=${PAGE}`);
  historyLoaded = true;
  prepend(page);
}

/** The page before the oldest entry shown ("load earlier"); false when there is none. */
export async function loadEarlier(): Promise<boolean> {
  const oldest = turns.find((t) => t.entryId !== undefined)?.entryId;
  if (!olderLeft || oldest === undefined) return false;
  prepend(await get<TranscriptPage>(`/api/v1/transcripts?limit=${PAGE}&before=${oldest}`));
  return true;
}

export function hasEarlier(): boolean {
  return olderLeft;
}

/** Entries holding every word of `query`, newest first, as turns (not merged into the conversation). */
export async function searchHistory(query: string): Promise<Turn[]> {
  const page = await get<TranscriptPage>(`/api/v1/transcripts?limit=${PAGE}&search=${encodeURIComponent(query)}`);
  return page.items.map((e) => transcriptTurn(e));
}

/** Older entries above what is shown; a turn shown live already (same request) is not shown twice. */
function prepend(page: TranscriptPage): void {
  olderLeft = page.more;
  set(mergeHistory(turns, page.items));
}

/** How the next message goes: the LLM source asked first, whether it starts a new topic, what it replaces. */
export interface SendOptions {
  llmSource?: string;
  newTopic?: boolean;
  /** The request of the shown turn this message takes the place of: asked again, or edited. */
  replaces?: { requestId: string };
}

/**
 * The page's own last turn, when it may be asked again or edited: answered, and the last turn shown (the
 * daemon replaces only a channel's last turn).
 */
export function replaceableTurn(shown: ShownTurn[]): Turn | undefined {
  const last = shown.at(-1)?.turn;
  return last && !last.channel && last.state === "done" && last.requestId && last.input ? last : undefined;
}

/**
 * An earlier version of the page's last turn becomes the one in use, in the daemon first (the next request
 * holds only it) and then here.
 */
export async function switchVersion(requestId: string): Promise<void> {
  await post("/api/v1/transcripts/choose", { request_id: requestId });
  set(chooseVersion(turns, requestId));
}

export async function send(message: string, file?: File, opts: SendOptions = {}): Promise<void> {
  subscribe();
  const id = newId();
  // A version of the turn it replaces, shown in its place at once.
  const version = opts.replaces
    ? { versionOf: opts.replaces.requestId, chosenAt: nextVersionAt(turns, opts.replaces.requestId) }
    : {};
  set([...turns, { ...newTurn(id, message, file), ...(opts.newTopic ? { newTopic: true } : {}), ...version }]);
  let finished: string | undefined;
  try {
    if (file) {
      const answer = await api<FileAnswer>("POST", "/api/v1/chat/file", formOf(id, message, file));
      const index = turns.findIndex((t) => t.id === id);
      if (index >= 0) set(update(turns, index, { attachment: answer.file }));
      set(finishTurn(turns, id, answer.reply ?? {}));
    } else {
      // Awaited first: `turns` must be read after the answer, not before the request.
      const reply = await post<Reply>("/api/v1/chat", {
        message,
        client_msg_id: id,
        ...(opts.llmSource ? { llm_source: opts.llmSource } : {}),
        ...(opts.newTopic ? { new_topic: true } : {}),
        ...(opts.replaces ? { replaces: opts.replaces.requestId } : {}),
      });
      set(finishTurn(turns, id, reply));
      finished = reply.response ?? "";
    }
  } catch (err) {
    set(failTurn(turns, id, errorText(pageMessages(), err)));
    // Refused (the turn was no longer the last, say): not a version of it, a failed message of its own.
    if (opts.replaces) set(turns.map((t) => (t.id === id ? { ...t, versionOf: undefined, chosenAt: undefined } : t)));
  }
  if (finished !== undefined) {
    notifyIfHidden({ title: pageMessages().replyFinished, body: finished, section: "chat", tag: id });
  }
}

export async function stop(): Promise<void> {
  await post("/api/v1/chat/interrupt");
}

function formOf(id: string, message: string, file: File): FormData {
  const form = new FormData();
  form.append("file", file);
  form.append("client_msg_id", id);
  if (message) form.append("message", message);
  return form;
}

export function useChat(): Turn[] {
  const [current, setCurrent] = useState(turns);
  useEffect(() => {
    subscribe();
    events.connect();
    watchers.add(setCurrent);
    setCurrent(turns);
    return () => {
      watchers.delete(setCurrent);
    };
  }, []);
  return current;
}
