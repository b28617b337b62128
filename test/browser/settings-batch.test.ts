/**
 * A settings form saves all or nothing, in a real Chromium against a real daemon: "Add LLM source" with a
 * bad third field stores none of the fields (no half-made source), shows the server's reason under that
 * field and what happened above the button; with the field fixed, one save stores them all.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { dashboardSkip, newPage, openDashboard, screenshot } from "../fixtures/browser.js";
import { startWebDaemon } from "../fixtures/webui.js";

describe("settings forms in a real browser", { skip: dashboardSkip }, () => {
  test("a form with a bad field saves none of its fields; fixed, it saves them all in one request", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    const page = await newPage(t);
    await openDashboard(page, web.base, (await web.login()).cookie);
    await page.getByRole("tab", { name: "Settings", exact: true }).click();
    const form = page.getByRole("form", { name: "Add LLM source" });
    await form.waitFor();
    const puts: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "PUT" && r.url().endsWith("/api/v1/settings")) puts.push(r.postData() ?? "");
    });

    await form.getByLabel("Source name", { exact: true }).fill("half");
    await form.getByLabel("Base URL", { exact: true }).fill(web.llm.url);
    await form.getByLabel("Model", { exact: true }).fill("fake-model");
    const priority = form.getByLabel("Priority", { exact: true });
    await priority.fill("first");
    await form.getByRole("button", { name: "Add LLM source", exact: true }).click();
    await priority.and(page.locator('[aria-invalid="true"]')).waitFor();
    const reasonId = ((await priority.getAttribute("aria-describedby")) ?? "")
      .split(" ")
      .find((id) => id.endsWith("-error"));
    assert.equal(await page.locator(`[id="${reasonId}"]`).textContent(), "Not a whole number.");
    await form
      .getByRole("alert")
      .filter({ hasText: /^Nothing was saved: 1 of the settings were refused/ })
      .waitFor();
    assert.equal(puts.length, 1, "the form was sent as one request");
    assert.ok(!web.daemon.config.sourceNames().includes("half"), "the valid fields were stored without the bad one");
    assert.equal(web.daemon.config.get("core.llm.sources.half.model"), "", "the model is still its default");
    await screenshot(page, "settings-form-refused");

    await priority.fill("5");
    await form.getByRole("button", { name: "Add LLM source", exact: true }).click();
    await page.getByRole("form", { name: "Source: half" }).waitFor();
    assert.equal(puts.length, 2);
    assert.equal(web.daemon.config.get("core.llm.sources.half.model"), "fake-model");
    assert.equal(web.daemon.config.getInt("core.llm.sources.half.priority"), 5);
  });
});
