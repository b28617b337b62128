/**
 * The heartbeat loops' settings (inventory §7: core.agent.distill_interval … with the original's defaults).
 * The daemon registers these with the config center at start; the Heartbeat reads them through the function
 * it is given, so a changed interval applies from the next tick (or at once after `reschedule()`).
 */
import type { ConfigDef } from "../../config/config-def.js";
import { parseDuration } from "../../config/duration.js";
import { DAY, MINUTE } from "../../util/time-units.js";
import type { LoopName } from "./heartbeat.js";

export const LOOP_KEYS: Readonly<Record<LoopName, string>> = {
  distill: "core.agent.distill_interval",
  archive: "core.agent.archive_interval",
  merge: "core.agent.merge_interval",
  review: "core.agent.review_interval",
};

// A loop every few seconds would hold the job lane and, for merge/review, spend LLM calls all day.
const zeroOrAtLeastAMinute = (value: string) => {
  const ms = parseDuration(value);
  return ms === 0 || ms >= MINUTE ? undefined : "must be 0 (loop off) or at least 1m";
};

interface LoopTexts {
  name: string;
  what: string;
  zhName: string;
  zhWhat: string;
}

const def = (loop: LoopName, dflt: string, t: LoopTexts): ConfigDef => ({
  key: LOOP_KEYS[loop],
  default: dflt,
  type: "duration",
  min: 0,
  max: 7 * DAY,
  check: zeroOrAtLeastAMinute,
  category: "memory",
  displayName: t.name,
  description: `${t.what} 0 turns the loop off.`,
  translations: { zh: { displayName: t.zhName, description: `${t.zhWhat}0 表示关闭此循环。` } },
});

export const HEARTBEAT_CONFIG_DEFS: readonly ConfigDef[] = [
  def("distill", "30m", {
    name: "Distill loop interval",
    what: "How often the distill loop runs the rule pipeline and prunes an overgrown context window.",
    zhName: "提炼循环间隔",
    zhWhat: "提炼循环运行规则流程、修剪过大的上下文窗口的频率。",
  }),
  def("archive", "60m", {
    name: "Archive loop interval",
    what: "How often cold documents (72 h untouched) are distilled into the knowledge graph.",
    zhName: "归档循环间隔",
    zhWhat: "把冷文档（72 小时未被触及）提炼进知识图谱的频率。",
  }),
  def("merge", "120m", {
    name: "Merge loop interval",
    what: "How often the merge loop asks the model about entities that may be the same thing.",
    zhName: "合并循环间隔",
    zhWhat: "合并循环向模型询问可能是同一事物的实体的频率。",
  }),
  def("review", "120m", {
    name: "Review loop interval",
    what: "How often the review loop asks the model to check extracted facts against their sentences.",
    zhName: "复核循环间隔",
    zhWhat: "复核循环让模型对照原句检查所抽取事实的频率。",
  }),
];
