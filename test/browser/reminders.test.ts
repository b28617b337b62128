/**
 * Reminders and approvals in a real Chromium against a real daemon with the fake LLM: a reminder set from
 * the chat that fired while no dashboard was open is a badge on the Reminders section, listed there once
 * (read = removed); timers are listed and cancelled; an approval a plugin's tool asks is shown in the
 * dashboard's dialog, escaped, and answered there, and the turn goes on with the answer.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { askerPlugin } from "../fixtures/asker.js";
import { dashboardSkip, newPage, openDashboard, openTab, screenshot } from "../fixtures/browser.js";
import { waitFor } from "../fixtures/wait.js";
import { webDaemonForSuite } from "../fixtures/webui.js";

describe("reminders and approvals in a real browser", { skip: dashboardSkip }, () => {
  const suite = webDaemonForSuite({ plugins: [askerPlugin] });
  const dashboards = async () => (await suite.web.json("GET", "/api/v1/runtime")).body.sse.dashboards as number;

  test("a reminder that fired with no dashboard open is a badge, then listed once in Reminders", async (t) => {
    const { web } = suite;
    web.llm.enqueue(
      { toolCalls: [{ name: "timer_set", arguments: { in: "1s", message: "stretch" } }] },
      { text: "ok" },
    );
    assert.equal((await web.json("POST", "/api/v1/chat", { message: "remind me in a second to stretch" })).status, 200);
    await waitFor(async () => (await web.json("GET", "/api/v1/inbox")).body.messages.length === 1, "the reminder kept");
    const page = await newPage(t);
    await openDashboard(page, web.base, suite.cookie);
    const tab = page.getByRole("tab", { name: "Reminders (1 unread)", exact: true });
    await tab.waitFor();
    await screenshot(page, "reminders-badge");
    await tab.click();
    await page.getByRole("heading", { name: "Kept while no dashboard was open", exact: true }).waitFor();
    await page.getByText("⏰ stretch", { exact: true }).waitFor();
    await page.getByRole("tab", { name: "Reminders", exact: true }).waitFor();
    assert.deepEqual((await web.json("GET", "/api/v1/inbox")).body.messages, [], "read = removed");
  });

  test("timers are listed and cancelled", async (t) => {
    const { web } = suite;
    web.llm.enqueue({ toolCalls: [{ name: "timer_set", arguments: { in: "1h", message: "tea 🍵" } }] }, { text: "ok" });
    await web.json("POST", "/api/v1/chat", { message: "remind me in an hour about tea" });
    const page = await newPage(t);
    await openDashboard(page, web.base, suite.cookie);
    await openTab(page, "Reminders");
    await page.getByText("tea 🍵", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Cancel the timer “tea 🍵”", exact: true }).click();
    await page.getByText("No timers are set.", { exact: false }).waitFor();
    assert.deepEqual((await web.json("GET", "/api/v1/timers")).body.timers, []);
  });

  test("an approval a tool asks is answered in the dashboard's dialog, shown escaped", async (t) => {
    const { web } = suite;
    const page = await newPage(t);
    await openDashboard(page, web.base, suite.cookie);
    await waitFor(async () => (await dashboards()) >= 1, "the dashboard's event stream");
    web.llm.enqueue(
      { toolCalls: [{ name: "risky_op", arguments: { what: "format\u001b[2K\r\u202e disk" } }] },
      { text: "done" },
    );
    const chat = web.json("POST", "/api/v1/chat", { message: "format the disk" });
    const dialog = page.getByRole("dialog", { name: "asker asks for your approval" });
    await dialog.waitFor();
    assert.equal(await dialog.locator("pre").textContent(), "may I format\\e[2K\\r\\u{202e} disk?");
    await screenshot(page, "approval-dialog");
    await dialog.getByRole("button", { name: "Allow once", exact: true }).click();
    assert.equal((await chat).body.response, "done");
    await dialog.waitFor({ state: "hidden" });
    const chats = web.llm.requests.filter((r) => r.method === "POST");
    const body = chats.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    assert.equal(
      body.messages.filter((m) => m.role === "tool").at(-1)?.content,
      "did format\u001b[2K\r\u202e disk (once)",
    );
    const recent = (await web.json("GET", "/api/v1/approvals")).body.recent;
    assert.equal(recent[0].outcome, "once");
    assert.equal(recent[0].by, "dashboard");
  });

  test("cmd_run `ls /` asks, is approved in the dashboard's dialog, and its output reaches the reply", async (t) => {
    const { web } = suite;
    const page = await newPage(t);
    await openDashboard(page, web.base, suite.cookie);
    await waitFor(async () => (await dashboards()) >= 1, "the dashboard's event stream");
    web.llm.enqueue({ toolCalls: [{ name: "cmd_run", arguments: { command: "ls /" } }] }, { text: "listed" });
    const chat = web.json("POST", "/api/v1/chat", { message: "what is in / ?" });
    const dialog = page.getByRole("dialog", { name: "cmd asks for your approval" });
    await dialog.waitFor();
    assert.match(String(await dialog.locator("pre").textContent()), /^run ls \/ {3}\(in a new empty folder\)$/);
    await dialog.getByRole("button", { name: "Allow once", exact: true }).click();
    assert.equal((await chat).body.response, "listed");
    const chats = web.llm.requests.filter((r) => r.method === "POST");
    const body = chats.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    const result = JSON.parse(String(body.messages.filter((m) => m.role === "tool").at(-1)?.content));
    assert.equal(result.status, "ok");
    assert.match(result.stdout, /\bbin\b/);
  });
});
