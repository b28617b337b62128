/**
 * The chat's turns and how bus events change them: deltas append to the turn of their requestId (a `reset`
 * starts that kind of text over), tool calls appear as cards at "start" and fill in at "end", the turn's
 * agent_output or the POST's answer makes the text final. Pure functions, so the tab only holds state.
 */

export interface ToolCard {
  id: string;
  name: string;
  args: string;
  status?: string;
  result?: string;
  durationMs?: number;
}

export interface Turn {
  /** The client_msg_id sent with the message (or the history entry's id). */
  id: string;
  input: string;
  ts: number;
  requestId?: string;
  text: string;
  reasoning: string;
  tools: ToolCard[];
  state: "pending" | "done" | "error";
  error?: string;
}

export type Payload = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v, null, 2));

/** raw_input of the webui channel: the oldest pending turn with the same text and no requestId yet is it. */
export function bindRequest(turns: Turn[], p: Payload): Turn[] {
  if (p.channel !== "webui" || typeof p.requestId !== "string") return turns;
  const index = turns.findIndex((t) => t.state === "pending" && !t.requestId && t.input === p.text);
  if (index < 0) return turns;
  return update(turns, index, { requestId: p.requestId });
}

export function applyDelta(turns: Turn[], p: Payload, kind: "text" | "reasoning"): Turn[] {
  const index = turns.findIndex((t) => t.requestId !== undefined && t.requestId === p.requestId);
  if (index < 0 || turns[index].state !== "pending") return turns;
  const before = p.reset ? "" : turns[index][kind];
  return update(turns, index, { [kind]: before + str(p.content) });
}

export function applyTool(turns: Turn[], p: Payload): Turn[] {
  const index = turns.findIndex((t) => t.requestId !== undefined && t.requestId === p.requestId);
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

export function applyOutput(turns: Turn[], p: Payload): Turn[] {
  const index = turns.findIndex((t) => t.requestId !== undefined && t.requestId === p.requestId);
  if (index < 0) return turns;
  if (p.error) return update(turns, index, { state: "error", error: str(p.content) || str(p.error) });
  return update(turns, index, { state: "done", text: str(p.content) || turns[index].text });
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
