/**
 * Kernel tools `llm_list_sources` and `llm_set_source` (inventory §3.6): the model can see which LLM
 * sources exist, how they are doing, and switch the preferred one when the user asks it to.
 */
import type { LlmAPI, ToolDef, ToolHandler } from "@homeagent/sdk";

export function llmSourceTools(llm: LlmAPI): Array<{ def: ToolDef; handler: ToolHandler }> {
  return [
    {
      def: {
        name: "llm_list_sources",
        description:
          "List the configured LLM sources: model, priority, whether each is available, its last error and " +
          "cooldown, and which one is preferred.",
        parameters: { type: "object", properties: {}, required: [] },
      },
      handler: () =>
        llm.sources().map((s) => ({
          name: s.name,
          model: s.model,
          adapter: s.adapter,
          priority: s.priority,
          preferred: s.preferred,
          state: s.state,
          available: s.available,
          ...(s.lastError ? { last_error: s.lastError } : {}),
          ...(s.cooldownUntil ? { cooldown_until: new Date(s.cooldownUntil).toISOString() } : {}),
          context_window: s.contextWindow,
          ...(s.supportsTools === undefined ? {} : { supports_tools: s.supportsTools }),
        })),
    },
    {
      def: {
        name: "llm_set_source",
        description:
          'Make an LLM source the preferred one (tried first) until changed; "auto" returns to priority order. ' +
          "The choice is saved in the configuration.",
        parameters: {
          type: "object",
          properties: { name: { type: "string", description: 'source name from llm_list_sources, or "auto"' } },
          required: ["name"],
        },
      },
      handler: (args) => {
        const name = String(args.name ?? "").trim();
        const preferred = name.toLowerCase() === "auto" ? "" : name;
        llm.use(preferred);
        return preferred ? `LLM source ${preferred} is now preferred` : "LLM sources back in priority order";
      },
    },
  ];
}
