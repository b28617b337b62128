/**
 * The chat outlives its tab: the turns and the event subscriptions live here, so switching to another tab
 * while a reply streams loses nothing. The Chat tab reads the turns with useChat().
 */
import { useEffect, useState } from "preact/hooks";
import { api, get, post } from "./api";
import {
  applyDelta,
  applyOutput,
  applyTool,
  bindRequest,
  failTurn,
  finishTurn,
  historyTurn,
  markGap,
  newId,
  newTurn,
  type Turn,
  update,
} from "./chat-state";
import { errorText } from "./error-text";
import { events } from "./events";
import { pageMessages } from "./i18n";
import { notifyIfHidden } from "./notify";

interface HistoryEntry {
  id: string;
  ts: number;
  input: string;
  response: string;
  unanswered?: string;
}

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
  events.onMissed(() => set(markGap(turns)));
}

export async function loadHistory(): Promise<void> {
  if (historyLoaded) return;
  const page = await get<{ items: HistoryEntry[] }>("/api/v1/chat/history?limit=50");
  historyLoaded = true;
  const old = page.items
    .map((h) => historyTurn(h.id, h.ts, h.input, h.response || h.unanswered || ""))
    .sort((a, b) => a.ts - b.ts);
  const known = new Set(turns.map((t) => t.id));
  set([...old.filter((t) => !known.has(t.id)), ...turns]);
}

export async function send(message: string, file?: File): Promise<void> {
  subscribe();
  const id = newId();
  set([...turns, newTurn(id, message, file)]);
  let finished: string | undefined;
  try {
    if (file) {
      const answer = await api<FileAnswer>("POST", "/api/v1/chat/file", formOf(id, message, file));
      const index = turns.findIndex((t) => t.id === id);
      if (index >= 0) set(update(turns, index, { attachment: answer.file }));
      set(finishTurn(turns, id, answer.reply ?? {}));
    } else {
      // Awaited first: `turns` must be read after the answer, not before the request.
      const reply = await post<Reply>("/api/v1/chat", { message, client_msg_id: id });
      set(finishTurn(turns, id, reply));
      finished = reply.response ?? "";
    }
  } catch (err) {
    set(failTurn(turns, id, errorText(pageMessages(), err)));
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
