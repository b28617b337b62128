/**
 * Fills the transcripts from the event bus: a turn's raw_input opens its entry, tool calls, reasoning and
 * approvals join it as they happen (and what the user said while it ran), and agent_output — published before the reply is delivered — closes it.
 * The bus delivers synchronously and each write commits, so a reply the user saw is on disk — unless the
 * file is busy (the scrub after a forget): then writes wait in order and are tried again (backlog.ts). A
 * failing write is the bus's to report; it never reaches the turn. Kernel self-tasks are not conversation and are
 * left out; messages sent outside turns come through `message` (the output channels call it).
 */
import type { AgentEvent, PendingApproval } from "@homeagent/sdk";
import type { KernelBus } from "../kernel/ports.js";
import type { WriteBacklog } from "./backlog.js";
import type { TranscriptStore } from "./store.js";

/** The store's writes, each through the backlog (a busy file makes them wait, not fail). */
type Writes = Pick<TranscriptStore, "begin" | "item" | "reasoning" | "end" | "replaced">;

const str = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);

export function recordTranscripts(
  bus: Pick<KernelBus, "subscribe">,
  store: TranscriptStore,
  backlog: WriteBacklog,
): () => void {
  const later =
    <A extends unknown[]>(write: (...args: A) => void) =>
    (...args: A) =>
      backlog.run(() => write(...args));
  const w: Writes = {
    begin: later((t) => store.begin(t)),
    item: later((id, item) => store.item(id, item)),
    reasoning: later((id, text) => store.reasoning(id, text)),
    end: later((id, out) => store.end(id, out)),
    replaced: later((id, replaces) => store.replaced(id, replaces)),
  };
  const offs = [
    bus.subscribe("raw_input", ({ payload: p }) => {
      // Not a conversation (a self-task), or one the client keeps itself and asked not to be recorded.
      if (p.self === true || p.transient === true) return;
      w.begin({
        requestId: str(p.requestId),
        source: str(p.source),
        channel: str(p.channel),
        input: str(p.text),
        noMemory: p.noMemory === true,
        newTopic: p.newTopic === true,
      });
    }),
    bus.subscribe("tool_call", ({ payload: p }) => {
      const base = { type: "tool" as const, id: str(p.toolCallId), name: str(p.name) };
      if (p.phase === "start") w.item(str(p.requestId), { ...base, args: str(p.arguments) });
      else {
        w.item(str(p.requestId), {
          ...base,
          args: "",
          status: str(p.status) || "done",
          result: str(p.result),
          ...(typeof p.durationMs === "number" ? { durationMs: p.durationMs } : {}),
        });
      }
    }),
    bus.subscribe("reasoning", ({ payload: p }) => w.reasoning(str(p.requestId), str(p.content))),
    bus.subscribe("approval", (e) => approval(w, e)),
    bus.subscribe("system", ({ seq, source, payload: p }) => {
      // The kernel's news only: a plugin may publish system events too, not rewrite what happened.
      if (source !== "kernel" || typeof p.requestId !== "string") return;
      if (p.kind === "interrupt") {
        w.item(p.requestId, { type: "interrupt", id: String(seq), source: str(p.source), text: str(p.text) });
      } else if (p.kind === "turn_replaced" && typeof p.replaces === "string") w.replaced(p.requestId, p.replaces);
    }),
    bus.subscribe("agent_output", ({ payload: p }) => {
      // A message sent outside a turn (the dashboard republishes its own) is recorded where it was sent.
      if (p.sent === true) return;
      w.end(str(p.requestId), {
        reply: str(p.content),
        ...(typeof p.error === "string" ? { error: p.error } : {}),
        stopped: p.stopped === true,
      });
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

function approval(store: Pick<Writes, "item">, { payload: p }: AgentEvent): void {
  if (p.phase === "asked") {
    const a = p.approval as PendingApproval;
    store.item(a.requestId, { type: "approval", id: a.id, plugin: a.plugin, question: a.question });
    return;
  }
  store.item(str(p.requestId), {
    type: "approval",
    id: str(p.id),
    plugin: "",
    question: "",
    outcome: str(p.outcome),
    ...(typeof p.by === "string" ? { by: p.by } : {}),
  });
}
