/**
 * The Memory tab in a real Chromium against a real daemon: a fact told in Chat shows on the context
 * timeline, memory search finds it, and forgetting it (preview, then confirm, the knowledge base only when
 * its box is ticked; the scrub followed to its end) keeps it out of the next prompt the LLM receives. Driven by roles and accessible names; the test saves screenshots.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { dashboardSkip, newPage, openDashboard, screenshot, sendChat } from "../fixtures/browser.js";
import { startWebDaemon } from "../fixtures/webui.js";

const FACT = "My cat is called Biscuit and she sleeps on the piano.";

describe("memory in a real browser", { skip: dashboardSkip }, () => {
  test("a fact told in chat is on the timeline, found by search, and forgotten out of the next prompt", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    const page = await newPage(t);
    await openDashboard(page, web.base, (await web.login()).cookie);
    web.llm.enqueue({ text: "Noted: Biscuit." });
    const turn = await sendChat(page, FACT);
    await turn.getByText("Noted: Biscuit.").waitFor();

    await page.getByRole("tab", { name: "Memory", exact: true }).click();
    const timeline = page.getByRole("list", { name: "Context timeline" });
    await timeline.getByText(FACT).waitFor();
    await page.getByLabel("Search for", { exact: true }).fill("Biscuit");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("list", { name: "Results" }).getByText("Biscuit").first().waitFor();
    await screenshot(page, "memory-found");

    const note = await web.json("PUT", "/api/v1/knowledge/item?path=pets/biscuit", { content: "Biscuit likes tuna." });
    assert.equal(note.status, 200);
    await page.getByLabel("What to forget", { exact: true }).fill("Biscuit");
    await page.getByRole("button", { name: "Show what matches", exact: true }).click();
    // The knowledge base is listed, and removed only when the box is ticked.
    await page.getByText("pets/biscuit", { exact: true }).waitFor();
    await page.getByRole("checkbox", { name: "Also remove these knowledge-base items" }).check();
    await page.getByRole("button", { name: "Forget for good: Biscuit", exact: true }).click();
    const status = page.getByRole("status").filter({ hasText: "Removed items" });
    await status.waitFor();
    await status.getByText("Knowledge-base items removed: 1").waitFor();
    await status.getByText("The database files are scrubbed.").waitFor({ timeout: 15_000 });
    await screenshot(page, "memory-forgotten");
    assert.equal((await web.json("GET", "/api/v1/knowledge/item?path=pets/biscuit")).status, 404);

    const before = web.llm.requests.length;
    const next = await sendChat(page, "What do you remember about my pets?");
    await next.getByText("ok", { exact: true }).waitFor();
    const prompt = JSON.stringify(web.llm.requests.slice(before).map((r) => r.body));
    assert.ok(prompt.includes("What do you remember about my pets?"), "the next question never reached the LLM");
    assert.ok(!prompt.includes("Biscuit"), "the forgotten fact is still in the next prompt");
  });
});
