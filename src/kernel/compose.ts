/**
 * Composes the first LLM request of a turn from its sections (sections.ts): the budget is shared first,
 * each section is then filled within its part, and what memory or the tools did not use flows to the
 * timeline, the persona and the plugins' context. The result says what every section got, for
 * `agent.lastContext()` and `/context`, and can give each section's text (`agent.previewContext`).
 *
 * Messages, in order: system (persona + output rules), memory index, related memory, timeline, the
 * pre_action handlers' messages, the input. A turn that brings its client's own conversation
 * (InjectOptions.history) has that conversation as its timeline instead of the context window: its
 * user/assistant messages as real chat messages, the newest that fit, placed right before the input so the
 * conversation reads on into it; its system messages join the plugins' context, which then comes before
 * the chat (a client's system prompt belongs ahead of its conversation).
 */
import type { ContextMessage, ContextReport } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import {
  DEFAULT_CONTEXT_WINDOW,
  estimateTokens,
  firstThatFit,
  MESSAGE_OVERHEAD,
  messageTokens,
  newestThatFit,
  requestBudget,
  tagTimeline,
  truncateToTokens,
} from "./budget.js";
import type { ChatMessage } from "./llm-spec.js";
import { outputRulesText, personaText, renderTimeline, timelineHeader, timelineRow } from "./prompt.js";
import { allocate, OPEN_ENDED, SECTIONS, type SectionName, type SectionTokens } from "./sections.js";
import { ToolOffer, type Words } from "./tool-search.js";
import type { ToolRegistry } from "./tools.js";
import type { AgentSettings, ContextEvent, LLMClient, MemoryContext, PreparedQuery } from "./types.js";

/** Once-per-run notices: each key is logged (and published) the first time only. */
export type Notice = (key: string, message: string, event?: Record<string, unknown>) => void;

export interface ComposeDeps {
  llm: LLMClient;
  tools: ToolRegistry;
  settings: AgentSettings;
  memory?: MemoryContext;
  warn: (msg: string) => void;
  notice: Notice;
  /** Splits tool_search queries and tool descriptions into words. */
  words: Words;
}

export interface ComposeInput {
  requestId: string;
  channel: string;
  input: string;
  outputChannels: string[];
  zone: string;
  /** The window without the turn's own event, oldest first. */
  timeline: ContextEvent[];
  /** Event ids in the window (the turn's own included): memory leaves them out. */
  inWindow: Set<number>;
  /** Null: no memory sections (no MemoryContext, or a self-task). */
  query: PreparedQuery | null;
  contextMsgs: ContextMessage[];
  /** A self-task's allowlist. */
  allow?: ReadonlySet<string>;
  /** The client's own conversation (checked by history.ts): the timeline instead of the window's events. */
  history?: ContextMessage[];
  /** The input starts a new topic (InjectOptions.newTopic). */
  newTopic?: boolean;
}

export interface Composed {
  messages: ChatMessage[];
  offer: ToolOffer;
  report: ContextReport;
  /** The text of each section's messages, as sent (the report's sections, input included). */
  texts(): Record<SectionName | "input", string>;
}

/** The timeline section: what it needs in full, and its messages within `tokens`. */
interface Timeline {
  need: number;
  fit(tokens: number): ChatMessage[];
}

const FLEXIBLE: ReadonlySet<SectionName> = new Set(["persona", "output_rules", "timeline", "plugin_context"]);

export async function composeRequest(deps: ComposeDeps, c: ComposeInput): Promise<Composed> {
  const window = deps.llm.contextWindow() > 0 ? deps.llm.contextWindow() : DEFAULT_CONTEXT_WINDOW;
  const total = requestBudget(window);
  const input: ChatMessage = { role: "user", content: c.input };
  const budget = Math.max(0, total - messageTokens(input));

  const persona = personaText(deps.settings.systemPrompt(), deps.settings.personalPrompt());
  const rules = outputRulesText({
    channel: c.channel,
    outputChannels: c.outputChannels,
    now: new Date(),
    zone: c.zone,
    newTopic: c.newTopic,
  });
  const chat = c.history?.filter((m) => m.role !== "system").map((m) => ({ role: m.role, content: m.content }));
  const timelinePart = chat ? historyTimeline(chat) : windowTimeline(c.timeline, c.zone);
  const pluginMsgs = [...(c.history?.filter((m) => m.role === "system") ?? []), ...c.contextMsgs];
  const tools = ToolOffer.candidates(deps.tools, c.allow);
  const memory = c.query && deps.memory ? OPEN_ENDED : 0;
  const needs: SectionTokens = {
    persona: MESSAGE_OVERHEAD + estimateTokens(persona),
    output_rules: estimateTokens(rules) + 1,
    tools: tools.need,
    memory_index: memory,
    related_memory: memory,
    timeline: timelinePart.need,
    plugin_context: sumTokens(pluginMsgs),
  };
  const first = allocate(budget, needs);

  const offer = ToolOffer.offer(tools.entries, first.tools, {
    allow: c.allow,
    preferred: recentTools(c.timeline),
    channel: c.channel,
    words: deps.words,
  });
  if (offer.trimmed) {
    deps.notice(
      "tools_trimmed",
      `the definitions of ${offer.total} tools need ${tools.need} tokens, more than their share of the prompt (${first.tools} of ${budget}); each request offers a core set and tool_search finds the others`,
      { kind: "tools_trimmed", offered: offer.count, total: offer.total },
    );
  }
  const mem = await memorySections(deps, c, first);

  // Memory and tools are settled; what they left is shared again among the flexible sections.
  const indexMsg: ChatMessage = { role: "system", content: mem.index };
  const relatedMsg: ChatMessage = { role: "system", content: mem.related };
  const fixed = {
    tools: offer.trimmed ? first.tools : offer.tokens(),
    memory_index: messageTokens(indexMsg) * Number(mem.index !== ""),
    related_memory: messageTokens(relatedMsg) * Number(mem.related !== ""),
  };
  const rest = budget - fixed.tools - fixed.memory_index - fixed.related_memory;
  const second = allocate(
    rest,
    needs,
    SECTIONS.filter((s) => FLEXIBLE.has(s.name)),
    budget,
  );
  const alloc: SectionTokens = {
    ...second,
    ...fixed,
    memory_index: first.memory_index,
    related_memory: first.related_memory,
  };

  const personaFit = fitSection(deps, "persona", persona, second.persona - MESSAGE_OVERHEAD);
  const rulesFit = fitSection(deps, "output_rules", rules, second.output_rules - 1);
  const system: ChatMessage = { role: "system", content: [personaFit, rulesFit].filter(Boolean).join("\n\n") };
  const timeline = timelinePart.fit(second.timeline);
  if (chat && timeline.length < chat.length) {
    deps.notice(
      "cut:history",
      `a client's conversation of ${chat.length} messages (${timelinePart.need} tokens) was longer than the timeline's share of the prompt (${second.timeline} tokens): its oldest ${chat.length - timeline.length} messages were left out, and longer conversations are cut the same way (said once) — send only the latest turns`,
    );
  }
  const plugin = firstThatFit(pluginMsgs, second.plugin_context, messageTokens).map((m) => ({
    role: m.role,
    content: m.content,
  }));
  if (plugin.length < pluginMsgs.length) {
    deps.notice(
      "cut:plugin_context",
      `the plugin_context section (pre_action messages and a client's system messages) needs ${needs.plugin_context} tokens but its share of the prompt is ${second.plugin_context}; ${pluginMsgs.length - plugin.length} of its ${pluginMsgs.length} messages were left out`,
    );
  }
  const head: ChatMessage[] = [
    ...(system.content ? [system] : []),
    ...(mem.index ? [indexMsg] : []),
    ...(mem.related ? [relatedMsg] : []),
  ];
  const messages = chat ? [...head, ...plugin, ...timeline, input] : [...head, ...timeline, ...plugin, input];

  const rulesTokens = rulesFit ? estimateTokens(rulesFit) + 1 : 0;
  const used: SectionTokens = {
    persona: system.content ? Math.max(0, messageTokens(system) - rulesTokens) : 0,
    output_rules: rulesTokens,
    tools: offer.tokens(),
    memory_index: fixed.memory_index,
    related_memory: fixed.related_memory,
    timeline: sumTokens(timeline),
    plugin_context: sumTokens(plugin),
  };
  return {
    messages,
    offer,
    report: reportOf(c.requestId, window, used, alloc, messageTokens(input), offer),
    texts: () => ({
      persona: personaFit,
      output_rules: rulesFit,
      tools: offer.count > 0 ? JSON.stringify(offer.specs()) : "",
      memory_index: mem.index,
      related_memory: mem.related,
      timeline: joinContents(timeline),
      plugin_context: joinContents(plugin),
      input: c.input,
    }),
  };
}

/** The window's events as one dated system message, the newest rows that fit. */
function windowTimeline(events: ContextEvent[], zone: string): Timeline {
  const rows = events.map((e) => timelineRow(e, zone));
  const rowCost = (row: string) => estimateTokens(row) + 1;
  const headerCost = MESSAGE_OVERHEAD + estimateTokens(timelineHeader(zone));
  return {
    need: rows.length ? headerCost + rows.reduce((sum, r) => sum + rowCost(r), 0) : 0,
    fit: (tokens) => {
      const text = renderTimeline(newestThatFit(rows, tokens - headerCost, rowCost), zone);
      return text ? [tagTimeline({ role: "system", content: text })] : [];
    },
  };
}

/** A client's conversation as chat messages, the newest that fit (the oldest are dropped first). */
function historyTimeline(chat: ChatMessage[]): Timeline {
  return { need: sumTokens(chat), fit: (tokens) => newestThatFit(chat, tokens, messageTokens) };
}

function sumTokens(messages: Array<ChatMessage | ContextMessage>): number {
  return messages.reduce((sum, m) => sum + messageTokens(m), 0);
}

function joinContents(messages: ChatMessage[]): string {
  return messages.map((m) => m.content).join("\n\n");
}

function reportOf(
  requestId: string,
  window: number,
  used: SectionTokens,
  alloc: SectionTokens,
  input: number,
  offer: ToolOffer,
): ContextReport {
  return {
    requestId,
    at: Date.now(),
    contextWindow: window,
    budget: requestBudget(window),
    sections: [
      ...SECTIONS.map((s) => ({ name: s.name, tokens: used[s.name], budget: alloc[s.name] })),
      { name: "input", tokens: input, budget: input },
    ],
    toolsOffered: offer.count,
    toolsTotal: offer.total,
  };
}

/** The memory sections within their allocations; a memory failure costs the sections, not the turn. */
async function memorySections(
  deps: ComposeDeps,
  c: ComposeInput,
  alloc: SectionTokens,
): Promise<{ index: string; related: string }> {
  if (!c.query || !deps.memory) return { index: "", related: "" };
  const budgets = {
    index: Math.max(0, alloc.memory_index - MESSAGE_OVERHEAD),
    related: Math.max(0, alloc.related_memory - MESSAGE_OVERHEAD),
  };
  try {
    const built = await deps.memory.build(c.query, budgets, { requestId: c.requestId, exclude: c.inWindow });
    return {
      index: fitSection(deps, "memory_index", built.index ?? "", budgets.index),
      related: fitSection(deps, "related_memory", built.related ?? "", budgets.related),
    };
  } catch (err) {
    deps.warn(
      `${c.requestId}: the memory sections could not be built, the request goes without them: ${errorMessage(err)}`,
    );
    return { index: "", related: "" };
  }
}

/** `text` within `tokens`; a cut is reported once per run and section. */
function fitSection(deps: ComposeDeps, name: SectionName, text: string, tokens: number): string {
  const fit = truncateToTokens(text, Math.max(0, tokens));
  if (fit !== text) {
    deps.notice(
      `cut:${name}`,
      `the ${name} section needs ${estimateTokens(text)} tokens but its share of the prompt is ${Math.max(0, tokens)}; it was cut to fit${name === "persona" ? " (shorten core.agent.system_prompt / personal_prompt)" : ""}`,
    );
  }
  return fit;
}

/** Tools the window's turns used, newest first, once each. */
function recentTools(events: ContextEvent[]): string[] {
  const seen = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    for (const name of events[i].toolsUsed) seen.add(name);
  }
  return [...seen];
}
