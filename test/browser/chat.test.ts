/**
 * The Chat tab in a real Chromium against a real daemon whose only LLM is the scripted fake: a reply
 * streams in (the page shows part of it before the whole), a tool call's card is there while the tool
 * still runs and fills in when it ends, and Stop interrupts a reply that would never end (the daemon hangs
 * up on the LLM). Driven by roles and accessible names; each test saves a screenshot.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { definePlugin } from "@homeagent/sdk";
import type { PluginFactory } from "../../src/plugins/registry.js";
import { dashboardSkip, newPage, openDashboard, screenshot, sendChat } from "../fixtures/browser.js";
import { waitFor } from "../fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

const REPLY = "Streaming arrives in small pieces, one frame after another, until the reply is whole.";

/** Lets the running slow_lookup call answer; each call replaces it. */
let releaseLookup: (() => void) | undefined;
/** Read through a call so the compiler does not narrow it to the value a test last assigned. */
const lookupRelease = (): (() => void) | undefined => releaseLookup;

/** A tool that answers only when the test says so, so its card can be seen while it runs. */
const slowTool: PluginFactory = {
  name: "slow-tool",
  capabilities: [],
  create: () =>
    definePlugin({
      name: "slow-tool",
      start(sdk) {
        sdk.registerTool(
          { name: "slow_lookup", description: "answers when the test releases it", parameters: { type: "object" } },
          () =>
            new Promise<string>((resolve) => {
              releaseLookup = () => resolve("forty-two");
            }),
        );
      },
    }),
};

describe("chat in a real browser", { skip: dashboardSkip }, () => {
  let web: WebDaemon;
  let cookie: string;
  before(async () => {
    web = await startWebDaemon({ plugins: [slowTool] });
    cookie = (await web.login()).cookie;
  });
  after(() => web?.stop());

  test("a reply streams in: part of it shows before the whole", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    web.llm.enqueue({ text: REPLY, pieceChars: 3, frameIntervalMs: 40 });
    const turn = await sendChat(page, "tell me about streaming");
    let partial = "";
    await waitFor(
      async () => {
        const shown = (await turn.textContent()) ?? "";
        const start = shown.indexOf("Streaming");
        if (start >= 0 && !shown.includes(REPLY)) partial = shown.slice(start);
        return partial !== "" || shown.includes(REPLY);
      },
      "the reply to start showing",
      { timeoutMs: 15_000, intervalMs: 10 },
    );
    assert.ok(partial !== "", "the whole reply appeared at once: no part of it was shown before the end");
    assert.ok(REPLY.startsWith(partial.trim()), `the partial text is not a prefix of the reply: ${partial}`);
    await turn.getByText(REPLY).waitFor();
    await waitFor(async () => (await turn.getAttribute("aria-busy")) === "false", "the turn to end", {
      timeoutMs: 15_000,
    });
    await screenshot(page, "chat-streamed");
  });

  test("a tool call's card shows while the tool runs and fills in when it ends", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    releaseLookup = undefined;
    web.llm.enqueue(
      { toolCalls: [{ id: "call_lookup", name: "slow_lookup", arguments: { q: "the answer" } }] },
      { text: "The lookup said forty-two." },
    );
    const turn = await sendChat(page, "look up the answer");
    const card = turn.locator("details").filter({ hasText: "slow_lookup" });
    await card.getByText("running…").waitFor();
    assert.equal(await turn.getByText("The lookup said forty-two.").count(), 0, "the reply came before the tool ended");
    await screenshot(page, "chat-tool-running");
    await waitFor(lookupRelease, "the tool to be called", { timeoutMs: 15_000 });
    lookupRelease()?.();
    await turn.getByText("The lookup said forty-two.").waitFor();
    assert.equal(await card.getByText("running…").count(), 0, "the card still says running after the tool ended");
    await card.locator("summary").click();
    await card.getByText("forty-two", { exact: true }).waitFor();
    await screenshot(page, "chat-tool-done");
  });

  test("Stop interrupts a reply that would never end", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    const before = web.llm.requests.length;
    web.llm.enqueue({ text: "on and on ", endless: true, pieceChars: 2, frameIntervalMs: 50 });
    const turn = await sendChat(page, "talk forever");
    await turn.getByText("on and on").first().waitFor();
    const stop = page.getByRole("button", { name: "Stop", exact: true });
    await stop.click();
    await stop.waitFor({ state: "detached" });
    await waitFor(() => web.llm.requests[before]?.aborted, "the daemon to hang up on the LLM", { timeoutMs: 15_000 });
    await waitFor(async () => (await turn.getAttribute("aria-busy")) === "false", "the turn to end", {
      timeoutMs: 15_000,
    });
    await screenshot(page, "chat-stopped");
  });

  test("Esc stops a reply, but not while an input method composes; a reply copies as its Markdown", async (t) => {
    const page = await newPage(t);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await openDashboard(page, web.base, cookie);
    web.llm.enqueue({ text: "**bold** and `code`" });
    const done = await sendChat(page, "say something in Markdown");
    await done.getByRole("button", { name: "Copy as Markdown" }).click();
    await done.getByRole("button", { name: "Copied" }).waitFor();
    assert.equal(await page.evaluate("navigator.clipboard.readText()"), "**bold** and `code`");

    const before = web.llm.requests.length;
    web.llm.enqueue({ text: "on and on ", endless: true, pieceChars: 2, frameIntervalMs: 50 });
    const turn = await sendChat(page, "talk until Esc");
    await turn.getByText("on and on").first().waitFor();
    const box = page.getByLabel("Message", { exact: true });
    // An IME's Esc cancels its composition (Chinese pinyin, say): the reply goes on.
    await box.dispatchEvent("keydown", { key: "Escape", isComposing: true, bubbles: true });
    await box.dispatchEvent("keydown", { key: "Enter", isComposing: true, bubbles: true });
    const shownBefore = ((await turn.textContent()) ?? "").length;
    await waitFor(async () => ((await turn.textContent()) ?? "").length > shownBefore + 20, "the reply to go on");
    assert.equal(web.llm.requests[before]?.aborted, false, "not stopped while composing");
    await box.press("Escape");
    await waitFor(() => web.llm.requests[before]?.aborted, "the daemon to hang up on the LLM", { timeoutMs: 15_000 });
    await waitFor(async () => (await turn.getAttribute("aria-busy")) === "false", "the turn to end", {
      timeoutMs: 15_000,
    });
  });

  test("at 390×844 the composer stays fully on screen with a conversation longer than the screen", async (t) => {
    const page = await newPage(t, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await openDashboard(page, web.base, cookie);
    const long = "A reply long enough to fill a phone's screen with a few of its kind. ".repeat(6);
    for (let i = 0; i < 4; i++) {
      web.llm.enqueue({ text: `${i}: ${long}` });
      const turn = await sendChat(page, `message ${i} of a long conversation`);
      await turn.getByText(`${i}: A reply long enough`).waitFor();
    }
    const log = page.getByRole("log", { name: "Conversation" });
    const overflow = await log.evaluate((el) => el.scrollHeight - el.clientHeight);
    assert.ok(overflow > 844, `the conversation is not longer than the screen (${overflow} px beyond the log)`);
    for (const control of [
      page.getByLabel("Message", { exact: true }),
      page.getByRole("button", { name: "Send", exact: true }),
    ]) {
      const box = await control.boundingBox();
      assert.ok(
        box && box.y >= 0 && box.y + box.height <= 844,
        `a part of the composer is off screen: ${JSON.stringify(box)}`,
      );
    }
    await screenshot(page, "chat-phone");
  });
});
