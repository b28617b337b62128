/**
 * What the next request would hold if `query` arrived now as a user message on the web UI's channel
 * (`sdk.kernel.preview`, the API's `memory/context?q=`): composed by the same code as a turn's request
 * (compose.ts), from the same window, memory, tools and settings, but nothing runs and nothing is kept —
 * no stages (so no pre_action messages), no LLM call, no events or notices, nothing written to the window
 * or to memory, and `lastContext()` stays as it was. Memory's build() only reads; the preview's request id
 * is one no turn uses, so it reads no turn's per-request state and leaves none behind.
 *
 * One difference is left: a real turn first prunes a full window for its input (memory ranks what leaves),
 * and the preview cannot know what that ranking would drop, so it shows the window as it is.
 */
import type { ContextPreview } from "@homeagent/sdk";
import { HomeAgentError } from "../util/errors.js";
import { type ComposeDeps, composeRequest } from "./compose.js";
import type { InputRegistry, OutputRegistry } from "./ports.js";
import { timeZone } from "./turn.js";
import { inputQuery } from "./turn-events.js";
import type { ContextWindow } from "./types.js";

/** The channel the preview composes for: the web UI's, where a preview is asked for. */
export const PREVIEW_CHANNEL = "webui";
/** UTF-8 bytes of a query at most. */
export const MAX_PREVIEW_QUERY_BYTES = 64 * 1024;

export interface PreviewDeps extends Omit<ComposeDeps, "notice"> {
  context: ContextWindow;
  inputs: InputRegistry;
  outputs: OutputRegistry;
}

export async function previewContext(deps: PreviewDeps, query: string, requestId: string): Promise<ContextPreview> {
  checkQuery(query);
  const { query: prepared } = await inputQuery(deps, requestId, PREVIEW_CHANNEL, query);
  const window = await deps.context.window();
  const { report, texts } = await composeRequest(
    // A preview tells no one anything: a cut it meets is noticed when a real turn meets it.
    { ...deps, notice: () => {} },
    {
      requestId,
      channel: PREVIEW_CHANNEL,
      input: query,
      outputChannels: deps.outputs.names(),
      zone: timeZone(deps),
      timeline: window,
      inWindow: new Set(window.map((e) => e.id)),
      query: prepared,
      contextMsgs: [],
    },
  );
  const text: Record<string, string> = texts();
  return {
    query,
    contextWindow: report.contextWindow,
    budget: report.budget,
    sections: report.sections.map((s) => ({ ...s, text: text[s.name] ?? "" })),
  };
}

function checkQuery(query: unknown): asserts query is string {
  if (typeof query !== "string" || !query.trim()) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: "a context preview needs the text of a message (a non-empty string)",
    });
  }
  const bytes = Buffer.byteLength(query, "utf8");
  if (bytes > MAX_PREVIEW_QUERY_BYTES) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `the query is ${bytes} bytes, a preview takes at most ${MAX_PREVIEW_QUERY_BYTES} (64 KiB); shorten it`,
    });
  }
}
