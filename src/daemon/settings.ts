/**
 * The daemon's view of its settings: AgentSettings read live from the config center, so `/settings set`
 * applies from the next turn on (the getters never throw: the config center only serves valid values), and
 * the start-up report of settings that are not in effect.
 */
import type { Logger } from "@homeagent/sdk";
import type { ConfigProblem, ConfigRegistry } from "../config/registry.js";
import type { AgentSettings } from "../kernel/types.js";

export function agentSettings(config: ConfigRegistry): AgentSettings {
  return {
    maxToolTurns: () => config.getInt("core.agent.max_tool_turns"),
    maxToolCallsPerRound: () => config.getInt("core.agent.max_tool_calls_per_round"),
    maxContextSize: () => config.getInt("core.agent.max_context_size"),
    systemPrompt: () => config.get("core.agent.system_prompt") ?? "",
    personalPrompt: () => config.get("core.agent.personal_prompt") ?? "",
    maxTokens: () => config.getInt("core.llm.max_tokens"),
    temperature: () => config.getNumber("core.llm.temperature"),
    thinkingEnabled: () => config.getBool("core.llm.thinking_enabled"),
    stageTimeoutMs: () => config.getDuration("core.plugin.stage_timeout"),
    toolTimeoutMs: () => config.getDuration("core.agent.tool_timeout"),
    timezone: () => config.get("core.agent.timezone") ?? "",
  };
}

/**
 * Start-up report of the config center: what open() migrated (info) and every value not in effect because
 * it breaks its definition (warn, one line each, secrets masked), announced as one `system` event so the
 * web UI and status can show it. Call it once plugins have declared their settings.
 */
export function reportConfig(
  config: ConfigRegistry,
  log: Logger,
  announce: (payload: Record<string, unknown>) => void,
): ConfigProblem[] {
  for (const note of config.startupNotes()) log.info(note);
  const problems = config.problems();
  for (const p of problems) log.warn(p.message);
  if (problems.length > 0) {
    announce({
      kind: "config_problems",
      problems: problems.map(({ key, value, origin, reason, default: fallback }) => ({
        key,
        value,
        origin,
        reason,
        default: fallback,
      })),
    });
  }
  return problems;
}
