/**
 * The chat outlives its tab: the turns and the event subscriptions live here, so switching to another tab
 * while a reply streams loses nothing. The Chat tab reads the turns with useChat().
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, get, post } from "./api";
import { applyDelta, applyOutput, applyTool, bindRequest, newId, type Turn, update } from "./chat-state";
import { events } from "./events";

interface HistoryEntry {
  id: string;
  ts: number;
  input: string;
  response: string;
  unanswered?: string;
}

let turns: Turn[] = [];
let historyLoaded = false;
let subscribed = false;
const watchers = new Set<(turns: Turn[]) => void>();

function set(next: Turn[]): void {
  turns = next;
  for (const watch of watchers) watch(turns);
}

function subscribe(): void {
  if (subscribed) return;
  subscribed = true;
  events.on("raw_input", (e) => set(bindRequest(turns, e.payload)));
  events.on("content_delta", (e) => set(applyDelta(turns, e.payload, "text")));
  events.on("reasoning_delta", (e) => set(applyDelta(turns, e.payload, "reasoning")));
  events.on("tool_call", (e) => set(applyTool(turns, e.payload)));
  events.on("agent_output", (e) => set(applyOutput(turns, e.payload)));
}

export async function loadHistory(): Promise<void> {
  if (historyLoaded) return;
  const page = await get<{ items: HistoryEntry[] }>("/api/v1/chat/history?limit=50");
  historyLoaded = true;
  const old: Turn[] = page.items
    .map((h) => ({
      id: h.id,
      input: h.input,
      ts: h.ts,
      text: h.response || h.unanswered || "",
      reasoning: "",
      tools: [],
      state: "done" as const,
    }))
    .sort((a, b) => a.ts - b.ts);
  const known = new Set(turns.map((t) => t.id));
  set([...old.filter((t) => !known.has(t.id)), ...turns]);
}

export async function send(message: string, file?: File): Promise<void> {
  subscribe();
  const id = newId();
  set([
    ...turns,
    { id, input: message || (file?.name ?? ""), ts: Date.now(), text: "", reasoning: "", tools: [], state: "pending" },
  ]);
  try {
    const reply = file
      ? await api<{ requestId?: string; response?: string }>("POST", "/api/v1/chat/file", formOf(message, file))
      : await post<{ requestId: string; response: string }>("/api/v1/chat", { message, client_msg_id: id });
    finish(id, { state: "done", requestId: reply.requestId, text: reply.response ?? "" });
  } catch (err) {
    finish(id, { state: "error", error: err instanceof ApiError ? err.message : String(err) });
  }
}

export async function stop(): Promise<void> {
  await post("/api/v1/chat/interrupt");
}

function finish(id: string, patch: Partial<Turn>): void {
  const index = turns.findIndex((t) => t.id === id);
  if (index < 0) return;
  const keepText = patch.text === "" ? { text: turns[index].text } : {};
  set(update(turns, index, { ...patch, ...keepText }));
}

function formOf(message: string, file: File): FormData {
  const form = new FormData();
  form.append("file", file);
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
