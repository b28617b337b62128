/** The Settings tab's model: cards and groups, texts by language, search in both languages, amounts with units. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  defText,
  joinBytes,
  joinDuration,
  matchesQuery,
  settingCards,
  sourceNames,
  splitBytes,
  splitDuration,
} from "./settings-model";
import type { ConfigDefInfo } from "./types";

const def = (key: string, more: Partial<ConfigDefInfo> = {}): ConfigDefInfo => ({
  key,
  default: "",
  type: "string",
  description: "",
  secret: false,
  ...more,
});

const CONTEXT = def("core.agent.max_context_size", {
  category: "memory",
  displayName: "Context window size",
  description: "Messages kept in the working context.",
  translations: { zh: { displayName: "上下文窗口大小", description: "工作上下文中保留的消息数。" } },
});

test("core definitions form one card per group, plugins one card each, in the page's group order", () => {
  const cards = settingCards([
    def("plugin.zeta.token", { category: "plugins" }),
    def("core.daemon.log_level", { category: "system" }),
    def("plugin.webui.listen_addr", { category: "access" }),
    CONTEXT,
    def("core.llm.temperature", { category: "models" }),
    def("core.llm.sources.*.model", { category: "models" }),
    def("core.daemon.api_key", { category: "access" }),
    def("core.odd", { category: "something a plugin made up" }),
  ]);
  assert.deepEqual(
    cards.map((c) => [c.id, c.group, c.defs.map((d) => d.key)]),
    [
      ["group-models", "models", ["core.llm.temperature"]],
      ["group-memory", "memory", ["core.agent.max_context_size"]],
      ["group-access", "access", ["core.daemon.api_key"]],
      ["plugin-webui", "access", ["plugin.webui.listen_addr"]],
      ["group-system", "system", ["core.daemon.log_level", "core.odd"]],
      ["plugin-zeta", "plugins", ["plugin.zeta.token"]],
    ],
  );
});

test("texts follow the UI's language, falling back to English and then to the key", () => {
  assert.deepEqual(defText(CONTEXT, "zh"), { label: "上下文窗口大小", description: "工作上下文中保留的消息数。" });
  assert.deepEqual(defText(CONTEXT, "en"), {
    label: "Context window size",
    description: "Messages kept in the working context.",
  });
  assert.deepEqual(defText(def("plugin.x.y", { description: "Plain." }), "zh"), {
    label: "plugin.x.y",
    description: "Plain.",
  });
});

test("search matches every word in either language, the key included, whatever the UI's language", () => {
  assert.ok(matchesQuery(CONTEXT, "context window"));
  assert.ok(matchesQuery(CONTEXT, "Window  CONTEXT"));
  assert.ok(matchesQuery(CONTEXT, "上下文窗口"));
  assert.ok(matchesQuery(CONTEXT, "max_context"));
  assert.ok(matchesQuery(CONTEXT, ""));
  assert.ok(!matchesQuery(CONTEXT, "context temperature"));
  assert.ok(matchesQuery(def("core.llm.sources.*.model"), "sources.main", "core.llm.sources.main.model"));
});

test("durations split into the largest whole unit and join back in the config center's syntax", () => {
  assert.deepEqual(splitDuration("90s"), { amount: "90", unit: "s" });
  assert.deepEqual(splitDuration("120m"), { amount: "2", unit: "h" });
  assert.deepEqual(splitDuration("1h30m"), { amount: "90", unit: "m" });
  assert.deepEqual(splitDuration("500ms"), { amount: "500", unit: "ms" });
  assert.deepEqual(splitDuration("0"), { amount: "0", unit: "s" });
  assert.equal(splitDuration("1500us"), null, "below a millisecond the raw text is edited");
  assert.equal(splitDuration("soon"), null);
  assert.equal(joinDuration({ amount: "5", unit: "m" }), "5m");
  assert.equal(joinDuration({ amount: " 0 ", unit: "h" }), "0");
  // An emptied amount keeps its unit while the user types.
  assert.equal(joinDuration({ amount: "", unit: "m" }), "m");
  assert.deepEqual(splitDuration("m"), { amount: "", unit: "m" });
});

test("byte counts split into bytes, KiB or MiB and join back as a count", () => {
  assert.deepEqual(splitBytes(String(4 * 1024 * 1024)), { amount: "4", unit: "MiB" });
  assert.deepEqual(splitBytes("1536"), { amount: "1536", unit: "bytes" });
  assert.deepEqual(splitBytes("2048"), { amount: "2", unit: "KiB" });
  assert.deepEqual(splitBytes("0"), { amount: "0", unit: "bytes" });
  assert.equal(splitBytes("lots"), null);
  assert.equal(joinBytes({ amount: "4", unit: "MiB" }), "4194304");
  assert.equal(joinBytes({ amount: "1.5", unit: "KiB" }), "1536");
  assert.equal(
    joinBytes({ amount: "0.3", unit: "bytes" }),
    "0.3",
    "not a whole count: sent as typed, for the server to refuse",
  );
  assert.equal(joinBytes({ amount: "", unit: "KiB" }), "KiB");
  assert.deepEqual(splitBytes("KiB"), { amount: "", unit: "KiB" });
});

test("source names come from the keys that have values, templates left out", () => {
  assert.deepEqual(
    sourceNames([
      "core.llm.sources.b.model",
      "core.llm.sources.a.base_url",
      "core.llm.sources.*.model",
      "core.llm.temperature",
    ]),
    ["a", "b"],
  );
});
