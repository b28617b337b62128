/**
 * The Settings tab in a real Chromium against a real daemon: an LLM source added through the form (pointing
 * at the fake LLM) passes "Test connection" and shows its key masked; a value the server refuses shows the
 * server's reason on the field; a saved setting is still there after the daemon restarts on the same data.
 * Driven by roles and accessible names; each test saves a screenshot.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { dashboardSkip, newPage, openDashboard, screenshot } from "../fixtures/browser.js";
import { tempDir } from "../fixtures/temp-dir.js";
import { startWebDaemon } from "../fixtures/webui.js";

const NEW_KEY = "sk-added-in-the-browser-4321";

async function openSettings(page: Page): Promise<void> {
  await page.getByRole("tab", { name: "Settings", exact: true }).click();
  await page.getByRole("form", { name: "Add LLM source" }).waitFor();
}

describe("settings in a real browser", { skip: dashboardSkip }, () => {
  test("an LLM source added in the form passes Test connection and shows its key masked", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    const page = await newPage(t);
    await openDashboard(page, web.base, (await web.login()).cookie);
    await openSettings(page);
    const form = page.getByRole("form", { name: "Add LLM source" });
    await form.getByLabel("Source name", { exact: true }).fill("browser");
    await form.getByLabel("base_url", { exact: true }).fill(web.llm.url);
    await form.getByLabel("model", { exact: true }).fill("fake-model");
    await form.getByLabel("api_key", { exact: true }).fill(NEW_KEY);
    await form.getByRole("button", { name: "Add LLM source", exact: true }).click();
    const testButton = page.getByRole("button", { name: "Test connection: browser", exact: true });
    await testButton.waitFor();
    const requests = web.llm.requests.length;
    await testButton.click();
    await page.getByText(/^Works \(\d+ ms\)/).waitFor();
    const sent = web.llm.requests.slice(requests).find((r) => r.path.endsWith("/chat/completions"));
    assert.equal(sent?.headers.authorization, `Bearer ${NEW_KEY}`, "the test did not reach the fake LLM with the key");
    const stored = await page.getByRole("form", { name: "Source: browser" }).getByLabel("api_key").inputValue();
    assert.ok(!stored.includes(NEW_KEY.slice(0, -4)), `the key is shown unmasked: ${stored}`);
    await screenshot(page, "settings-source-added");
  });

  test("a refused value shows the server's reason on the field, and a saved one survives a restart", async (t) => {
    const dataDir = tempDir("ha-browser-settings-");
    let web = await startWebDaemon({ dataDir });
    t.after(() => web.stop());
    let page = await newPage(t);
    await openDashboard(page, web.base, (await web.login()).cookie);
    await openSettings(page);
    const field = () => page.getByLabel("core.agent.max_tool_turns", { exact: true });
    const save = () => page.getByRole("button", { name: "Save: agent", exact: true }).click();
    await field().fill("lots");
    await save();
    await field().and(page.locator('[aria-invalid="true"]')).waitFor();
    const reasonId = ((await field().getAttribute("aria-describedby")) ?? "")
      .split(" ")
      .find((id) => id.endsWith("-error"));
    assert.ok(reasonId, "the refused field names no error text for screen readers");
    const reason = (await page.locator(`[id="${reasonId}"]`).textContent()) ?? "";
    assert.ok(reason.length > 0, "the server's reason is empty");
    await screenshot(page, "settings-refused");

    await field().fill("7");
    await save();
    await page.getByText("Saved.").first().waitFor();
    await web.stop();
    web = await startWebDaemon({ dataDir });
    page = await newPage(t, { name: "after-restart" });
    await openDashboard(page, web.base, (await web.login()).cookie);
    await openSettings(page);
    assert.equal(await field().inputValue(), "7");
    await screenshot(page, "settings-after-restart");
  });
});
