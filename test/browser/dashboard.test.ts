/**
 * The dashboard in a real Chromium against a real daemon (fake LLM), driven the way a person with a
 * keyboard or a screen reader would: by roles and accessible names, never by CSS classes. Covers the
 * login, the nine tabs as a keyboard tablist, the Overview's uptime, the Chinese UI drawn with a CJK font,
 * axe-core on every tab in both themes, the phone-sized viewport without sideways scrolling, disabling
 * a plugin from the Plugins tab, and a degraded plugin's reason. Every test leaves a screenshot under its
 * temp dir.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newStageContext } from "../../src/kernel/stages.js";
import {
  type AxeViolation,
  axeViolations,
  cjkFontSkip,
  dashboardSkip,
  errorsOf,
  isCjkFamily,
  login,
  newPage,
  openDashboard,
  openTab,
  platformFontsFor,
  screenshot,
  scrollsHorizontally,
} from "../fixtures/browser.js";
import { waitFor } from "../fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

const TABS = ["Overview", "Chat", "Reminders", "Workspace", "Plugins", "Memory", "Knowledge", "Settings", "Kernel"];
const TABS_ZH = ["概览", "聊天", "提醒", "工作区", "插件", "记忆", "知识库", "设置", "内核"];

/** Selects a tab by clicking it and waits for its panel (a tabpanel named after the tab) to show. */
/** The names of the tabs in the tablist, in order. */
function tabNames(page: Page): Promise<string[]> {
  return page.getByRole("tablist").getByRole("tab").allTextContents();
}

async function selectedTab(page: Page): Promise<string | null> {
  return page.getByRole("tab", { selected: true }).textContent();
}

describe("dashboard in a real browser", { skip: dashboardSkip }, () => {
  let web: WebDaemon;
  /** One session for every test but the first (which logs in through the form): logins are rate-limited. */
  let cookie: string;
  before(async () => {
    web = await startWebDaemon();
    cookie = (await web.login()).cookie;
  });
  after(() => web?.stop());

  test("logging in shows the Overview with the daemon's uptime and nine tabs; the login page meets no error", async (t) => {
    const page = await newPage(t);
    await page.goto(`${web.base}/`);
    await page
      .getByText(`The first start wrote the password to the file ${web.daemon.paths.root}/credentials.`)
      .waitFor();
    assert.deepEqual(errorsOf(page), [], "the login page logged an error (a 401 in the console)");
    await login(page, web);
    const uptime = page.getByRole("timer", { name: "Uptime" });
    await uptime.waitFor({ state: "visible" });
    assert.match((await uptime.textContent()) ?? "", /\d/);
    assert.deepEqual(await tabNames(page), TABS);
    assert.equal(await selectedTab(page), "Overview");
    await screenshot(page, "overview");
    assert.deepEqual(errorsOf(page), []);
  });

  test("the sections are reached with Tab and switched with the arrow keys of the side bar, Home and End", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await page.getByRole("timer", { name: "Uptime" }).waitFor({ state: "visible" });
    const focused = page.locator('[role="tab"]:focus');
    const focusedTab = async () => ((await focused.count()) === 1 ? focused.textContent() : null);
    // Keyboard only: Tab from the top of the page reaches the selected tab within a few presses.
    await page.locator("body").focus();
    let presses = 0;
    while ((await focusedTab()) !== "Overview") {
      assert.ok(++presses <= 15, "Tab never reached the selected tab in 15 presses");
      await page.keyboard.press("Tab");
    }
    assert.equal(await page.getByRole("tablist").getAttribute("aria-orientation"), "vertical");
    for (const name of [...TABS.slice(1), TABS[0]]) {
      await page.keyboard.press("ArrowDown");
      await page.getByRole("tabpanel", { name, exact: true }).waitFor({ state: "visible" });
      assert.equal(await selectedTab(page), name);
      assert.equal(await focusedTab(), name, `focus did not follow the selection to ${name}`);
    }
    await page.keyboard.press("ArrowUp");
    await page.getByRole("tabpanel", { name: "Kernel", exact: true }).waitFor({ state: "visible" });
    await page.keyboard.press("Home");
    await page.getByRole("tabpanel", { name: "Overview", exact: true }).waitFor({ state: "visible" });
    await page.keyboard.press("End");
    await page.getByRole("tabpanel", { name: "Kernel", exact: true }).waitFor({ state: "visible" });
    assert.equal(await focusedTab(), "Kernel");
    // Only the selected tab is in the Tab order (roving tabindex).
    assert.equal(await page.getByRole("tab").and(page.locator('[tabindex="0"]')).count(), 1);
    await screenshot(page, "kernel-by-keyboard");
  });

  test("中文: the switch translates the tabs, is remembered, and the labels use a CJK font", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await page.getByLabel("Language", { exact: true }).selectOption({ label: "中文" });
    const overview = page.getByRole("tab", { name: "概览", exact: true });
    await overview.waitFor({ state: "visible" });
    assert.deepEqual(await tabNames(page), TABS_ZH);
    await page.getByRole("timer", { name: "运行时间" }).waitFor({ state: "visible" });
    assert.equal(await page.locator("html").getAttribute("lang"), "zh-CN");
    await page.reload();
    await overview.waitFor({ state: "visible" });
    await screenshot(page, "overview-zh");
    if (cjkFontSkip) {
      t.diagnostic(`font check skipped: ${cjkFontSkip}`);
      return;
    }
    const fonts = await platformFontsFor(page, overview);
    assert.ok(fonts.some(isCjkFamily), `概览 is drawn without a CJK font: ${JSON.stringify(fonts)}`);
  });

  for (const theme of ["Light", "Dark"]) {
    for (const width of [1280, 390]) {
      test(`axe finds no serious or critical violation on any tab (${theme.toLowerCase()} theme, ${width} px)`, async (t) => {
        const viewport = { width, height: width === 390 ? 844 : 800 };
        const page = await newPage(t, { bypassCSP: true, viewport, name: `axe-${theme}-${width}` });
        await openDashboard(page, web.base, cookie);
        const found: Record<string, AxeViolation[]> = {};
        const menu = page.getByRole("button", { name: "Menu", exact: true });
        if (width === 390) {
          // On a phone the theme is chosen in the menu, which axe checks open as well.
          await menu.click();
          await page.getByLabel("Theme", { exact: true }).selectOption({ label: theme });
          const violations = await axeViolations(page);
          if (violations.length > 0) found.menu = violations;
          await menu.click();
        } else {
          await page.getByLabel("Theme", { exact: true }).selectOption({ label: theme });
        }
        for (const name of TABS) {
          await openTab(page, name);
          await page.getByText("Loading…").first().waitFor({ state: "detached" });
          const violations = await axeViolations(page);
          if (violations.length > 0) found[name] = violations;
        }
        await screenshot(page, `axe-${theme}-${width}`);
        assert.deepEqual(found, {});
      });
    }
  }

  test("at 390×844 every section is reached through the menu, and none scrolls sideways", async (t) => {
    const page = await newPage(t, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await openDashboard(page, web.base, cookie);
    const wide: string[] = [];
    for (const name of TABS) {
      await openTab(page, name);
      await page.getByText("Loading…").first().waitFor({ state: "detached" });
      if (await scrollsHorizontally(page)) wide.push(name);
      await screenshot(page, `narrow-${name}`);
    }
    assert.deepEqual(wide, []);
  });

  test("the phone menu: arrows move within it, a pick closes it onto the section, Escape back onto Menu", async (t) => {
    const page = await newPage(t, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await openDashboard(page, web.base, cookie);
    const menu = page.getByRole("button", { name: "Menu", exact: true });
    const tablist = page.getByRole("tablist", { name: "Sections" });
    await menu.click();
    await tablist.waitFor();
    await page.getByRole("tab", { name: "Overview", exact: true }).focus();
    await page.keyboard.press("ArrowDown");
    assert.equal(await tablist.isVisible(), true, "an arrow key closed the menu");
    assert.equal(await selectedTab(page), "Chat");
    assert.equal(await page.locator("main").getAttribute("inert"), "", "the page under the open menu is reachable");
    const focusedId = () => page.evaluate<string>("document.activeElement?.id ?? ''");
    await waitFor(async () => (await focusedId()) === "tab-chat", "focus on the Chat tab");
    await page.keyboard.press("Enter");
    await tablist.waitFor({ state: "hidden" });
    await page.getByRole("tabpanel", { name: "Chat", exact: true }).waitFor();
    await waitFor(
      async () => (await page.evaluate<string>("document.activeElement?.id ?? ''")) === "main",
      "focus on the section",
    );
    assert.equal(await page.locator("main").getAttribute("inert"), null);
    await menu.click();
    await tablist.waitFor();
    await page.keyboard.press("Escape");
    await tablist.waitFor({ state: "hidden" });
    await waitFor(async () => (await focusedId()) === "", "focus back on Menu (it has no id)");
    assert.equal(await page.evaluate<string>("document.activeElement?.textContent ?? ''"), "Menu");
  });

  test("disabling a plugin in the Plugins tab shows in its card, and enabling brings it back", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await openTab(page, "Plugins");
    const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "cli", exact: true }) });
    await card.getByText("running", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Disable cli", exact: true }).click();
    await card.getByText("disabled", { exact: true }).waitFor();
    const enable = page.getByRole("button", { name: "Enable cli", exact: true });
    assert.ok(await enable.isEnabled(), "Enable cli stays disabled after the plugin was disabled");
    const listed = await web.json("GET", "/api/v1/plugins");
    const cli = (listed.body as { plugins: { name: string; state: string }[] }).plugins.find((p) => p.name === "cli");
    assert.equal(cli?.state, "disabled");
    await screenshot(page, "plugin-disabled");
    await enable.click();
    await card.getByText("running", { exact: true }).waitFor();
    assert.deepEqual(errorsOf(page), []);
  });

  test("a plugin whose stage handler kept failing shows as degraded, with why, in the Plugins and Kernel tabs", async (t) => {
    const stages = web.daemon.agent.stages;
    stages.register("cli", "pre_action", () => {
      throw new Error("backend down");
    });
    t.after(() => stages.unregisterPlugin("cli"));
    for (let i = 0; i < 3; i++) {
      await stages.run(
        "pre_action",
        newStageContext({ requestId: `r${i}`, source: "t", channel: "t", rawMessage: "x" }),
      );
    }
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await openTab(page, "Plugins");
    const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "cli", exact: true }) });
    await card.getByText("Health: degraded", { exact: true }).waitFor();
    await card.getByText(/^its pre_action handler failed 3 of its last 3 runs \(last: backend down\)/).waitFor();
    await openTab(page, "Kernel");
    const row = page
      .getByRole("region", { name: "Plugins" })
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "cli" }) });
    await row.getByText("degraded", { exact: true }).waitFor();
    await row.getByText(/pre_action handler failed 3 of its last 3 runs/).waitFor();
    await screenshot(page, "plugin-degraded");
    assert.deepEqual(errorsOf(page), []);
  });
});
