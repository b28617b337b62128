/** The `plugin.healthcheck.*` settings, declared so the settings page lists them and every write is validated. */
import type { SettingDef } from "@homeagent/sdk";

export const HEALTHCHECK_SETTINGS: SettingDef[] = [
  {
    key: "perf_history",
    default: "100",
    type: "int",
    min: 10,
    max: 1_000,
    category: "system",
    description:
      "Tool calls and check runs whose durations healthcheck_perf summarizes, and tool reports kept from healthcheck_report; older ones are dropped.",
    displayName: "Health check history",
    translations: {
      zh: {
        displayName: "健康检查历史条数",
        description:
          "healthcheck_perf 汇总的工具调用与检查耗时条数，以及 healthcheck_report 保留的工具报告条数；更早的会被丢弃。",
      },
    },
  },
  {
    key: "memory_timeout",
    default: "20s",
    type: "duration",
    min: 1_000,
    max: 25_000,
    category: "system",
    description:
      "Time limit of the memory check (memory.db's integrity and its search index); a part not done by then is reported incomplete.",
    displayName: "Memory check time limit",
    translations: {
      zh: {
        displayName: "记忆检查时限",
        description: "记忆检查（memory.db 完整性及其搜索索引）的时间上限；到时未完成的部分报告为未完成。",
      },
    },
  },
  {
    key: "auto_interval",
    default: "0",
    type: "duration",
    min: 0,
    max: 604_800_000,
    category: "system",
    description:
      "How often the LLM self-test runs: the model tries the daemon's read-only tools in an isolated task and reports how each went (it costs tokens). 0 = never.",
    displayName: "Self-test every",
    translations: {
      zh: {
        displayName: "自检间隔",
        description:
          "LLM 自检的运行间隔：模型在隔离的任务中试用守护进程的只读工具并报告结果（会消耗 token）。0 = 不运行。",
      },
    },
  },
  {
    key: "llm_timeout",
    default: "120s",
    type: "duration",
    min: 10_000,
    max: 1_800_000,
    category: "system",
    description: "How long one self-test run may take; it is stopped then.",
    displayName: "Self-test time limit",
    translations: { zh: { displayName: "自检时限", description: "单次自检的最长时间，超时即停止。" } },
  },
  {
    key: "llm_max_turns",
    default: "20",
    type: "int",
    min: 1,
    max: 100,
    category: "system",
    description: "Rounds of tool calls one self-test run may take (never more than core.agent.max_tool_turns).",
    displayName: "Self-test tool rounds",
    translations: {
      zh: {
        displayName: "自检工具轮数",
        description: "单次自检最多的工具调用轮数（不超过 core.agent.max_tool_turns）。",
      },
    },
  },
];
