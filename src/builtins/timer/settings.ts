/** The `plugin.timer.*` settings, declared so the settings page lists them and every write is validated. */
import type { SettingDef } from "@homeagent/sdk";

export const TIMER_SETTINGS: SettingDef[] = [
  {
    key: "max_duration",
    default: "30",
    type: "int",
    min: 1,
    max: 366,
    unit: "days",
    category: "agent",
    description: "How far ahead a one-time reminder may be set.",
    displayName: "Longest reminder",
    translations: { zh: { displayName: "最长提醒时间", description: "一次性提醒最多可以设在多久之后。" } },
  },
  {
    key: "max_timers",
    default: "100",
    type: "int",
    min: 1,
    max: 10_000,
    unit: "timers",
    category: "agent",
    description: "Reminders and recurring timers kept at once; setting one more is refused until one is cancelled.",
    displayName: "Timers at most",
    translations: {
      zh: {
        displayName: "定时器上限",
        description: "同时保留的提醒和周期定时器数量；达到上限后需先取消一个才能再设。",
      },
    },
  },
  {
    key: "follow_up",
    default: "false",
    type: "bool",
    category: "agent",
    description:
      "When a timer fires, also start a turn so the agent can act on it (kept out of long-term memory); off: the reminder is only delivered.",
    displayName: "Act on reminders",
    translations: {
      zh: {
        displayName: "提醒时让助手行动",
        description: "定时器触发时，同时开始一轮对话，让助手据此行动（不记入长期记忆）；关闭时只送达提醒。",
      },
    },
  },
];
