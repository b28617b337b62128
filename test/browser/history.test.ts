/**
 * The Chat tab's history in a real Chromium: after a reload it shows what happened, not what memory kept —
 * a web turn's tool card and its reasoning (folded), a turn sent through waiter with its channel's badge
 * (also live while the page is open), a reminder a real timer fired — and search finds a tool result's text;
 * "New topic" marks the next message; the last turn asked again or edited keeps its versions, and a flip
 * chooses the one the next request holds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { dashboardSkip, newPage, openDashboard, openTab, screenshot, sendChat } from "../fixtures/browser.js";
import { CliLines } from "../fixtures/homed-process.js";
import { waitFor } from "../fixtures/wait.js";
import { startWebDaemon, TEST_API_KEY, type WebDaemon } from "../fixtures/webui.js";

describe("chat history in a real browser", { skip: dashboardSkip }, () => {
  let web: WebDaemon;
  let cookie: string;
  let cli: CliLines;
  before(async () => {
    web = await startWebDaemon();
    cookie = (await web.login()).cookie;
    cli = await CliLines.open(join(web.daemon.paths.root, "cli.sock"));
    assert.equal(await cli.text(`/auth ${TEST_API_KEY}`), "authenticated");
  });
  after(async () => {
    cli?.close();
    await web?.stop();
  });

  test("after a reload: tool cards, folded reasoning, a waiter turn with its badge, a reminder; search finds a tool's result", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    web.llm.enqueue(
      { reasoning: "asking the system first", toolCalls: [{ name: "cmd_run", arguments: { command: "uname -s" } }] },
      { text: "A Unix-like system." },
    );
    const turn = await sendChat(page, "which system is this?");
    await turn.getByText("A Unix-like system.").waitFor();

    // A turn through waiter shows up live, with its channel.
    web.llm.enqueue({ text: "菠萝 from the terminal" });
    assert.equal(await cli.text("hello from waiter", 20_000), "菠萝 from the terminal");
    const log = page.getByRole("log", { name: "Conversation" });
    const waiterTurn = log.getByRole("article").filter({ hasText: "hello from waiter" });
    await waiterTurn.getByText("via cli").waitFor();
    // A real timer: set by the model, fired by the timer plugin a second later.
    web.llm.enqueue(
      { toolCalls: [{ name: "timer_set", arguments: { in: "1s", message: "stand up and stretch" } }] },
      { text: "I will remind you." },
    );
    assert.equal((await web.json("POST", "/api/v1/chat", { message: "remind me in a second" })).status, 200);
    await waitFor(
      async () =>
        (await web.json("GET", "/api/v1/transcripts?limit=5")).body.items.some(
          (e: { messageKind?: string }) => e.messageKind === "reminder",
        ),
      "the reminder to fire",
      { timeoutMs: 10_000, intervalMs: 50 },
    );

    await openDashboard(page, web.base, cookie);
    await openTab(page, "Chat");
    const webTurn = log.getByRole("article").filter({ hasText: "which system is this?" });
    await webTurn.getByText("A Unix-like system.").waitFor();
    const card = webTurn.locator("details.tool-card");
    assert.match(String(await card.locator("summary").textContent()), /cmd_run.*done/);
    const reasoning = webTurn.locator("details.reasoning");
    assert.equal(await reasoning.getAttribute("open"), null, "reasoning is folded");
    await reasoning.locator("summary").click();
    await reasoning.getByText("asking the system first").waitFor();
    await log.getByRole("article").filter({ hasText: "hello from waiter" }).getByText("via cli").waitFor();
    const reminder = log.getByRole("article").filter({ hasText: "⏰ stand up and stretch" });
    await reminder.getByText("reminder", { exact: true }).waitFor();
    await screenshot(page, "history-after-reload");

    await page.getByRole("searchbox", { name: "Search the conversation" }).fill("菠萝");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const results = page.getByRole("region", { name: "Search the conversation" });
    await results.getByText("菠萝 from the terminal").waitFor();
    assert.equal(await results.getByRole("article").count(), 1);
    // "Linux" is only in the tool's result (uname -s), not in the question or the reply.
    await page.getByRole("searchbox", { name: "Search the conversation" }).fill("linux");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await results.getByText("which system is this?").waitFor();
    await page.getByRole("button", { name: "Back to the conversation" }).click();
    await log.waitFor({ state: "visible" });
  });

  test("New topic marks the next message, and the mark stays after a reload", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await openTab(page, "Chat");
    const toggle = page.getByRole("button", { name: "New topic" });
    await toggle.click();
    assert.equal(await toggle.getAttribute("aria-pressed"), "true");
    web.llm.enqueue({ text: "Gardens, then." });
    const turn = await sendChat(page, "let us talk about gardens");
    await turn.getByText("Gardens, then.").waitFor();
    assert.equal(await toggle.getAttribute("aria-pressed"), "false", "only the next message");
    await turn.locator(".topic-divider").waitFor();
    await openDashboard(page, web.base, cookie);
    await openTab(page, "Chat");
    const again = page.getByRole("log", { name: "Conversation" }).getByRole("article").filter({ hasText: "gardens" });
    await again.locator(".topic-divider").waitFor();
  });

  test("Ask again and ↑-to-edit make versions of the last turn; a flip chooses one, and the next request holds only it", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    web.llm.enqueue({ text: "Two plus two is five." });
    const turn = await sendChat(page, "what is two plus two?");
    await turn.getByText("Two plus two is five.").waitFor();
    web.llm.enqueue({ text: "Two plus two is four." });
    await turn.getByRole("button", { name: "Ask again" }).click();
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByText("Two plus two is four.").waitFor();
    await log.getByText("Two plus two is five.").waitFor({ state: "detached" });
    assert.doesNotMatch(JSON.stringify(web.llm.requests.at(-1)?.body.messages), /five/);
    const versions = log.getByRole("group", { name: /^Version \d of \d$/ });
    assert.equal(await versions.getAttribute("aria-label"), "Version 2 of 2");

    // Back to the first reply: it is the one in memory again.
    await versions.getByRole("button", { name: "Earlier version" }).click();
    await log.getByText("Two plus two is five.").waitFor();
    await log.getByRole("group", { name: "Version 1 of 2" }).waitFor();

    const box = page.getByLabel("Message", { exact: true });
    // While an input method composes, ↑ is its own (it moves among the candidates).
    await box.dispatchEvent("keydown", { key: "ArrowUp", isComposing: true, bubbles: true });
    assert.equal(await box.inputValue(), "");
    await box.press("ArrowUp");
    assert.equal(await box.inputValue(), "what is two plus two?");
    await box.fill("what is three plus three?");
    web.llm.enqueue({ text: "Six." });
    await box.press("Enter");
    await log.getByText("Six.").waitFor();
    await log.getByRole("group", { name: "Version 3 of 3" }).waitFor();
    assert.equal(await log.getByRole("article").filter({ hasText: "plus" }).count(), 1, "versions show as one turn");

    // The edit's flip goes back to the second version; a reload shows the one chosen.
    await log.getByRole("button", { name: "Earlier version" }).click();
    await log.getByText("Two plus two is four.").waitFor();
    await openDashboard(page, web.base, cookie);
    await openTab(page, "Chat");
    await log.getByText("Two plus two is four.").waitFor();
    await log.getByRole("group", { name: "Version 2 of 3" }).waitFor();
    await screenshot(page, "history-versions");
    web.llm.enqueue({ text: "Noted." });
    await sendChat(page, "thanks");
    await log.getByText("Noted.").waitFor();
    const sent = JSON.stringify(web.llm.requests.at(-1)?.body.messages);
    assert.match(sent, /Two plus two is four/);
    assert.doesNotMatch(sent, /five|three plus three|Six/, "only the chosen version reaches the model");
  });
});
