/**
 * Browser notifications in a real Chromium: off until the user turns them on (the browser's permission is
 * granted to the test's context, as a person clicking "Allow" would), then a reply that finishes while
 * the tab is hidden shows one, with the reply's start as its body, and a reply in a tab in view does not.
 * Headless Chromium draws no notification, so the page's Notification constructor is wrapped to record
 * what the dashboard asked it to show; the tab's visibility is set the same way.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { askerPlugin } from "../fixtures/asker.js";
import { dashboardSkip, newPage, openDashboard, sendChat } from "../fixtures/browser.js";
import { waitFor } from "../fixtures/wait.js";
import { webDaemonForSuite } from "../fixtures/webui.js";

const RECORD = `(() => {
  const Real = window.Notification;
  window.__shown = [];
  window.__hidden = false;
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__shown.push({ title, body: options && options.body, tag: options && options.tag });
    }
  }
  Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recorded;
  Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden });
})()`;

interface Shown {
  title: string;
  body?: string;
  tag?: string;
}

const shown = (page: Page) => page.evaluate<Shown[]>("window.__shown");

describe("browser notifications", { skip: dashboardSkip }, () => {
  const suite = webDaemonForSuite({ plugins: [askerPlugin] });

  test("a reply that finishes while the tab is hidden shows one, once turned on; none in view or when off", async (t) => {
    const page = await newPage(t, { permissions: ["notifications"] });
    await page.addInitScript(RECORD);
    await openDashboard(page, suite.web.base, suite.cookie);

    suite.web.llm.enqueue({ text: "while off" });
    await page.evaluate("window.__hidden = true");
    await (await sendChat(page, "first, notifications off")).getByText("while off").waitFor();
    assert.deepEqual(await shown(page), [], "a notification before the user turned them on");

    await page.getByRole("button", { name: "Notify me", exact: true }).click();
    await page.getByRole("button", { name: "Notifications on", exact: true }).waitFor();
    await page.evaluate("window.__hidden = false");
    suite.web.llm.enqueue({ text: "A reply while the tab is in view." });
    await (await sendChat(page, "second, the tab in view")).getByText("A reply while the tab is in view.").waitFor();
    assert.deepEqual(await shown(page), [], "a notification for a tab in view");

    await page.evaluate("window.__hidden = true");
    suite.web.llm.enqueue({ text: "The answer arrived while you were away." });
    await (await sendChat(page, "third, the tab hidden")).getByText("The answer arrived").waitFor();
    const [one, ...more] = await shown(page);
    assert.equal(more.length, 0);
    assert.equal(one?.title, "HomeAgent replied");
    assert.equal(one?.body, "The answer arrived while you were away.");
  });

  test("an approval asked while the tab is hidden shows a notification naming the plugin and the question", async (t) => {
    const page = await newPage(t, { permissions: ["notifications"] });
    await page.addInitScript(RECORD);
    await openDashboard(page, suite.web.base, suite.cookie);
    await page.getByRole("button", { name: "Notify me", exact: true }).click();
    await page.getByRole("button", { name: "Notifications on", exact: true }).waitFor();
    await page.evaluate("window.__hidden = true");
    suite.web.llm.enqueue(
      { toolCalls: [{ name: "risky_op", arguments: { what: "restart the router" } }] },
      { text: "ok" },
    );
    const chat = suite.web.json("POST", "/api/v1/chat", { message: "restart the router" });
    await waitFor(async () => (await shown(page)).length === 1, "the notification");
    const [one] = await shown(page);
    assert.equal(one.title, "HomeAgent asks for approval");
    assert.equal(one.body, "asker: may I restart the router?");
    await page.getByRole("dialog").getByRole("button", { name: "Deny", exact: true }).click();
    assert.equal((await chat).body.response, "ok");
  });
});
