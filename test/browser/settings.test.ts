/**
 * The Settings tab in a real Chromium against a real daemon: an LLM source added through the form (pointing
 * at the fake LLM) passes "Test connection" and its key is never shown again, not in the page and not in
 * any answer; a value the server refuses shows the server's reason on the field; a saved setting survives
 * the daemon's restart and goes back to its default with Reset; a refusal is said in the UI's language;
 * the search finds a setting by words in English and in Chinese; a choice is a list, a yes/no a switch, a duration an amount with its unit; the
 * source set by environment variables is read-only and names them. Driven by roles and accessible names;
 * each test saves a screenshot.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { dashboardSkip, newPage, openDashboard, screenshot } from "../fixtures/browser.js";
import { tempDir } from "../fixtures/temp-dir.js";
import { waitFor } from "../fixtures/wait.js";
import { startWebDaemon, TEST_LLM_KEY } from "../fixtures/webui.js";

const NEW_KEY = "sk-added-in-the-browser-4321";

async function openSettings(page: Page, tab = "Settings"): Promise<void> {
  await page.getByRole("tab", { name: tab, exact: true }).click();
  await page.locator("#settings-search").waitFor();
}

/** What the page itself can fetch of the settings, as raw text (every byte a script of the page could read). */
function settingsAnswer(page: Page): Promise<string> {
  return page.evaluate<string>("fetch('/api/v1/settings').then((r) => r.text())");
}

describe("settings in a real browser", { skip: dashboardSkip }, () => {
  test("an LLM source added in the form passes Test connection, and its key is never shown again", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    const page = await newPage(t);
    await openDashboard(page, web.base, (await web.login()).cookie);
    await openSettings(page);
    const form = page.getByRole("form", { name: "Add LLM source" });
    await form.getByLabel("Source name", { exact: true }).fill("browser");
    assert.equal(await form.getByRole("combobox", { name: "Adapter", exact: true }).inputValue(), "openai");
    await form.getByLabel("Base URL", { exact: true }).fill(web.llm.url);
    await form.getByLabel("Model", { exact: true }).fill("fake-model");
    await form.getByLabel("API key", { exact: true }).fill(NEW_KEY);
    await form.getByRole("button", { name: "Add LLM source", exact: true }).click();
    const testButton = page.getByRole("button", { name: "Test connection: browser", exact: true });
    await testButton.waitFor();
    const requests = web.llm.requests.length;
    await testButton.click();
    await page.getByText(/^Works \(\d+ ms\)/).waitFor();
    const sent = web.llm.requests.slice(requests).find((r) => r.path.endsWith("/chat/completions"));
    assert.equal(sent?.headers.authorization, `Bearer ${NEW_KEY}`, "the test did not reach the fake LLM with the key");

    const card = page.getByRole("form", { name: "Source: browser" });
    const key = card.getByLabel("API key", { exact: true });
    assert.equal(await key.inputValue(), "", "a secret comes back into its field");
    assert.match((await key.getAttribute("aria-describedby")) ?? "", /-secret/);
    await card.getByText("Set. It is never shown again: type a new value to replace it.").waitFor();
    const answer = await settingsAnswer(page);
    for (const secret of [NEW_KEY, TEST_LLM_KEY]) {
      assert.ok(!answer.includes(secret.slice(-4)), `the settings answer shows the end of ${secret.slice(0, 6)}…`);
    }
    // The unchanged field saves nothing over the key: it still works.
    await card.getByLabel("Model", { exact: true }).fill("fake-model-2");
    await card.getByRole("button", { name: "Save: Source: browser", exact: true }).click();
    await card.getByText("Saved.").waitFor();
    assert.equal(web.daemon.config.get("core.llm.sources.browser.api_key"), NEW_KEY);
    await screenshot(page, "settings-source-added");
  });

  test("a refused value shows the server's reason; a saved one survives a restart and resets to its default", async (t) => {
    const dataDir = tempDir("ha-browser-settings-");
    let web = await startWebDaemon({ dataDir });
    t.after(() => web.stop());
    let page = await newPage(t);
    await openDashboard(page, web.base, (await web.login()).cookie);
    await openSettings(page);
    const field = () => page.getByLabel("Tool rounds per message", { exact: true });
    const save = () => page.getByRole("button", { name: "Save: Agent", exact: true }).click();
    await field().fill("lots");
    await save();
    await field().and(page.locator('[aria-invalid="true"]')).waitFor();
    const reasonId = ((await field().getAttribute("aria-describedby")) ?? "")
      .split(" ")
      .find((id) => id.endsWith("-error"));
    assert.ok(reasonId, "the refused field names no error text for screen readers");
    assert.equal(await page.locator(`[id="${reasonId}"]`).textContent(), "Not a whole number.");
    await page.getByText(/^Nothing was saved: 1 of the settings were refused/).waitFor();
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
    await page.getByText("Changed (default: 10)").waitFor();
    await screenshot(page, "settings-after-restart");

    await page.getByRole("button", { name: "Reset to default: Tool rounds per message", exact: true }).click();
    assert.equal(await field().inputValue(), "10", "the field shows the default it goes back to");
    await save();
    await page.getByText("Saved.").first().waitFor();
    assert.equal(web.daemon.config.getInt("core.agent.max_tool_turns"), 10);
    await page.getByText("Changed (default: 10)").waitFor({ state: "detached" });
  });

  test("the search finds a setting by words in English and in Chinese", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    const cookie = (await web.login()).cookie;
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await openSettings(page);
    const search = page.getByRole("searchbox", { name: "Search settings" });
    await search.fill("context window");
    await page.getByLabel("Context window size", { exact: true }).waitFor();
    assert.equal(
      await page.getByLabel("Temperature", { exact: true }).isVisible(),
      false,
      "a setting that does not match is shown",
    );
    assert.equal(await page.getByRole("heading", { name: "System", exact: true }).isVisible(), false);
    await search.fill("no setting has this");
    await page.getByText("No setting matches “no setting has this”.").waitFor();
    await screenshot(page, "settings-search-en");

    const zh = await newPage(t, { locale: "zh-CN", name: "zh" });
    await openDashboard(zh, web.base, cookie);
    await openSettings(zh, "设置");
    await zh.getByRole("searchbox", { name: "搜索设置" }).fill("上下文窗口");
    await zh.getByLabel("上下文窗口大小", { exact: true }).waitFor();
    assert.equal(await zh.getByLabel("温度", { exact: true }).isVisible(), false);
    // A refusal is said in Chinese too: the server sends its id and details beside its English.
    const size = zh.getByLabel("上下文窗口大小", { exact: true });
    await size.fill("0");
    await zh.getByRole("button", { name: "保存：记忆", exact: true }).click();
    await zh.getByText("超出范围：允许 1 到 10000。").waitFor();
    await zh.getByText(/^未保存任何内容：有 1 项设置被拒绝/).waitFor();
    // English words find it in the Chinese UI too, and the key does.
    await zh.getByRole("searchbox", { name: "搜索设置" }).fill("max_context_size");
    await zh.getByLabel("上下文窗口大小", { exact: true }).waitFor();
    await screenshot(zh, "settings-search-zh");
    // The README's picture: the top of the page as a person first sees it.
    await search.fill("");
    await screenshot(page, "settings-top", { fullPage: false });
  });

  test("choices are lists, yes/no a switch, durations and sizes an amount with a unit; the env source is read-only", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    const page = await newPage(t);
    await openDashboard(page, web.base, (await web.login()).cookie);
    await openSettings(page);
    const level = page.getByRole("combobox", { name: "Log level", exact: true });
    assert.deepEqual(await level.locator("option").allTextContents(), ["debug", "info", "warn", "error"]);
    await page.getByRole("switch", { name: "Think before answering", exact: true }).first().waitFor();
    const retry = page.getByLabel("Retry delay", { exact: true });
    assert.equal(await retry.inputValue(), "2");
    const unit = page.getByRole("combobox", { name: "Unit of Retry delay", exact: true });
    assert.equal(await unit.inputValue(), "s");
    await unit.selectOption({ label: "minutes" });
    await page.getByRole("button", { name: "Save: Every LLM call", exact: true }).click();
    await page.getByText("Saved.").first().waitFor();
    assert.equal(web.daemon.config.get("core.llm.retry_delay"), "2m");
    // Typed key by key, an amount stays as typed: 605 seconds is not rounded into minutes on the way,
    // and a decimal can be typed.
    const call = page.getByLabel("Longest LLM call", { exact: true });
    await page
      .getByRole("combobox", { name: "Unit of Longest LLM call", exact: true })
      .selectOption({ label: "seconds" });
    await call.fill("");
    await call.pressSequentially("605");
    assert.equal(await call.inputValue(), "605");
    await page.getByRole("button", { name: "Save: Every LLM call", exact: true }).click();
    await waitFor(() => web.daemon.config.get("core.llm.call_timeout") === "605s", "605s to be saved");
    await page
      .getByRole("combobox", { name: "Unit of Longest LLM call", exact: true })
      .selectOption({ label: "hours" });
    await call.fill("");
    await call.pressSequentially("1.5");
    assert.equal(await call.inputValue(), "1.5");
    await page.getByRole("button", { name: "Save: Every LLM call", exact: true }).click();
    await waitFor(() => web.daemon.config.get("core.llm.call_timeout") === "1.5h", "1.5h to be saved");
    const largest = page.getByRole("combobox", { name: "Unit of Largest reply", exact: true });
    assert.equal(await largest.inputValue(), "MiB");
    assert.equal(await page.getByLabel("Largest reply", { exact: true }).inputValue(), "4");

    const env = page.getByRole("form", { name: "Source: env" });
    await env.getByText(/comes from environment variables \(.*HOMEAGENT_LLM_BASE_URL/).waitFor();
    const baseUrl = env.getByLabel("Base URL", { exact: true });
    assert.equal(await baseUrl.isDisabled(), true, "a value the environment sets looks editable");
    assert.equal(await baseUrl.inputValue(), web.llm.url);
    await env
      .getByText("Set by the environment variable HOMEAGENT_LLM_BASE_URL; change it where the daemon is started.")
      .waitFor();
    assert.equal(await env.getByLabel("API key", { exact: true }).isDisabled(), true);
    assert.equal(
      await env.getByLabel("Priority", { exact: true }).isDisabled(),
      false,
      "what no variable sets stays editable",
    );
    await screenshot(page, "settings-kinds");
  });
});
