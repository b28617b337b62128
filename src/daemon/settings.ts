/**
 * AgentSettings read live from the config center, so `/settings set` applies from the next turn on.
 */
import type { ConfigRegistry } from "../config/registry.js";
import type { AgentSettings } from "../kernel/types.js";

export function agentSettings(config: ConfigRegistry): AgentSettings {
  return {
    maxToolTurns: () => config.getInt("core.agent.max_tool_turns"),
    maxContextSize: () => config.getInt("core.agent.max_context_size"),
    systemPrompt: () => config.get("core.agent.system_prompt") ?? "",
    personalPrompt: () => config.get("core.agent.personal_prompt") ?? "",
    maxTokens: () => config.getInt("core.llm.max_tokens"),
    temperature: () => config.getNumber("core.llm.temperature"),
    thinkingEnabled: () => config.getBool("core.llm.thinking_enabled"),
  };
}
