/**
 * The heartbeat loops' settings (inventory §7: core.agent.distill_interval … with the original's defaults).
 * The daemon registers these with the config center at start; the Heartbeat reads them through the function
 * it is given, so a changed interval applies from the next tick (or at once after `reschedule()`).
 */
import type { ConfigDef } from "../../config/config-def.js";
import { parseDuration } from "../../config/duration.js";
import type { LoopName } from "./heartbeat.js";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

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

const def = (loop: LoopName, dflt: string, what: string): ConfigDef => ({
  key: LOOP_KEYS[loop],
  default: dflt,
  type: "duration",
  min: 0,
  max: 7 * DAY,
  check: zeroOrAtLeastAMinute,
  category: "agent",
  description: `${what} 0 turns the loop off.`,
});

export const HEARTBEAT_CONFIG_DEFS: readonly ConfigDef[] = [
  def("distill", "30m", "How often the distill loop runs the rule pipeline and prunes an overgrown context window."),
  def("archive", "60m", "How often cold documents (72 h untouched) are distilled into the knowledge graph."),
  def("merge", "120m", "How often the merge loop asks the model about entities that may be the same thing."),
  def("review", "120m", "How often the review loop asks the model to check extracted facts against their sentences."),
];
