/**
 * The Overview's health card in a real Chromium against a real daemon with every built-in and a plugin whose
 * start fails: the failure is listed with its reason and what to do, in English and with Chinese labels,
 * with no failed request and no accessibility violation.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { definePlugin } from "@homeagent/sdk";
import type { PluginFactory } from "../../src/plugins/registry.js";
import { axeViolations, dashboardSkip, errorsOf, newPage, openDashboard } from "../fixtures/browser.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

const broken: PluginFactory = {
  name: "broken",
  capabilities: [],
  create: () =>
    definePlugin({
      name: "broken",
      start: () => {
        throw new Error("no weather station found");
      },
    }),
};

describe("the Overview's health card in a real browser", { skip: dashboardSkip }, () => {
  let web: WebDaemon;
  let cookie: string;
  before(async () => {
    web = await startWebDaemon({ plugins: [broken] });
    cookie = (await web.login()).cookie;
  });
  after(() => web?.stop());

  test("a plugin that failed to start is listed with its reason and fix (en, zh labels)", async (t) => {
    const page = await newPage(t, { bypassCSP: true });
    await openDashboard(page, web.base, cookie);
    await page.getByRole("heading", { name: "Health checks", exact: true }).waitFor();
    const item = page.locator('[data-check="plugin:broken"]');
    await item.waitFor();
    assert.match(
      (await item.textContent()) ?? "",
      /Failed\s*plugin:broken: failed to load or start: .*no weather station found→ /,
    );
    assert.match(
      (await page.locator("[data-health]").textContent()) ?? "",
      /^Failed \d+ failed, \d+ warnings, \d+ ok$/,
    );
    assert.deepEqual(await axeViolations(page), []);
    await page.getByLabel("Language", { exact: true }).selectOption({ label: "中文" });
    await page.getByRole("heading", { name: "健康检查", exact: true }).waitFor();
    assert.match(
      (await page.locator("[data-health]").textContent()) ?? "",
      /^失败 \d+ 项失败，\d+ 项警告，\d+ 项正常$/,
    );
    assert.deepEqual(errorsOf(page), []);
  });
});
