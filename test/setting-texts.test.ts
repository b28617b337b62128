/**
 * Every setting the daemon ships speaks both languages: a label and a description in English and in
 * Chinese, defined beside the definition, so a new setting cannot ship as a raw key. The definitions are
 * read from a running daemon with every built-in plugin, so one registered anywhere (the core's, the
 * memory loops', a built-in plugin's) is covered. Each sits in a group of the Settings page, and each unit
 * it names is one the dashboard can say in both languages.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigDefInfo } from "@homeagent/sdk";
import { MESSAGES } from "../web/src/messages.js";
import { GROUPS } from "../web/src/settings-model.js";
import { startWebDaemon, type WebDaemon } from "./fixtures/webui.js";

const CJK = /[\u3400-\u9fff]/;
let web: WebDaemon;
let SHIPPED: Array<[string, ConfigDefInfo]>;

before(async () => {
  web = await startWebDaemon();
  SHIPPED = web.daemon.config.defInfos().map((d) => [d.key, d]);
});
after(() => web.stop());

test("every shipped setting has a label and a description in English and in Chinese", () => {
  const keys = SHIPPED.map(([key]) => key);
  for (const key of ["core.agent.max_context_size", "core.agent.distill_interval", "plugin.webui.listen_addr"]) {
    assert.ok(keys.includes(key), `${key} is not among the running daemon's definitions`);
  }
  const missing: string[] = [];
  for (const [key, def] of SHIPPED) {
    const zh = def.translations?.zh;
    if (!def.displayName?.trim()) missing.push(`${key}: no English label (displayName)`);
    if (!def.description.trim()) missing.push(`${key}: no English description`);
    if (!zh?.displayName || !CJK.test(zh.displayName)) missing.push(`${key}: no Chinese label`);
    if (!zh?.description || !CJK.test(zh.description)) missing.push(`${key}: no Chinese description`);
    if (def.displayName && CJK.test(def.displayName)) missing.push(`${key}: the English label is Chinese`);
  }
  assert.deepEqual(missing, []);
});

test("every shipped setting sits in a group of the Settings page", () => {
  const stray = SHIPPED.filter(([, def]) => !(GROUPS as readonly string[]).includes(def.category ?? ""));
  assert.deepEqual(
    stray.map(([key, def]) => `${key}: ${def.category}`),
    [],
  );
});

test("every unit a shipped setting names is said in both languages", () => {
  const units = new Set(SHIPPED.map(([, def]) => def.unit).filter((u): u is string => Boolean(u)));
  assert.ok(units.size > 0);
  for (const unit of units) {
    for (const lang of ["en", "zh"] as const) {
      const said = (MESSAGES[lang] as unknown as Record<string, string>)[`unit_${unit}`];
      assert.ok(said, `unit ${unit} has no ${lang} text (unit_${unit} in web/src/i18n.ts)`);
    }
  }
});
