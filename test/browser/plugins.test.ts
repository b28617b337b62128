/**
 * The Plugins tab in a real Chromium against a real daemon with a real external plugin (echo-ts, a
 * plugin.js under `<data>/plugins/`): Reload of an unchanged plugin says it left it running, Restart starts
 * it in a new process and names it, the card shows process, version, uptime and crashes and the plugin's
 * own settings, and a disabled plugin shows no health. Driven by roles and accessible names.
 */
import assert from "node:assert/strict";
import { describe, type TestContext, test } from "node:test";
import { dashboardSkip, newPage, openDashboard, openTab, screenshot } from "../fixtures/browser.js";
import { installFixturePlugin } from "../fixtures/plugins.js";
import { tempDir } from "../fixtures/temp-dir.js";
import { webDaemonForSuite } from "../fixtures/webui.js";

describe("plugins in a real browser", { skip: dashboardSkip }, () => {
  const dataDir = tempDir("ha-browser-plugins-");
  installFixturePlugin(dataDir, "echo-ts");
  const suite = webDaemonForSuite({ dataDir });

  const pidOf = (name: string) => suite.web.daemon.plugins.list().find((p) => p.name === name)?.pid;
  /** The Plugins tab of a new page, and the card of the plugin named. */
  const openCard = async (t: TestContext, name: string) => {
    const page = await newPage(t);
    await openDashboard(page, suite.web.base, suite.cookie);
    await openTab(page, "Plugins");
    return { page, card: page.getByRole("listitem").filter({ has: page.getByRole("heading", { name, exact: true }) }) };
  };

  test("Reload of an unchanged plugin says so; Restart starts it in a new process and names it", async (t) => {
    const { page, card } = await openCard(t, "echo-ts");
    const before = pidOf("echo-ts");
    assert.ok(before);
    await card.getByText(String(before), { exact: true }).waitFor();
    await card.getByText("JavaScript", { exact: true }).waitFor();
    await card.getByText("0.1.0", { exact: true }).waitFor();
    await card.getByText("Uptime", { exact: true }).waitFor();

    await page.getByRole("button", { name: "Reload echo-ts", exact: true }).click();
    await page
      .getByRole("status")
      .getByText("echo-ts is unchanged on disk and running: nothing to reload (Restart starts it anew).")
      .waitFor();
    assert.equal(pidOf("echo-ts"), before, "a reload of an unchanged plugin restarted it");

    await page.getByRole("button", { name: "Restart echo-ts", exact: true }).click();
    const status = page.getByRole("status").getByText(/^echo-ts was restarted: new process \d+\.$/);
    await status.waitFor();
    const after = pidOf("echo-ts");
    assert.ok(after && after !== before, "Restart left the same process running");
    assert.equal(await status.textContent(), `echo-ts was restarted: new process ${after}.`);
    await card.getByText(String(after), { exact: true }).waitFor();
    await screenshot(page, "plugins-restarted");
  });

  test("a disabled plugin shows no health; the webui plugin's own settings are on its card", async (t) => {
    const { page, card } = await openCard(t, "echo-ts");
    await card.getByText("Health: healthy", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Disable echo-ts", exact: true }).click();
    await card.getByText("disabled", { exact: true }).waitFor();
    assert.equal(await card.getByText(/^Health:/).count(), 0, "a disabled plugin still shows a health");
    assert.equal(await page.getByRole("button", { name: "Restart echo-ts", exact: true }).isDisabled(), true);
    await page.getByRole("button", { name: "Enable echo-ts", exact: true }).click();
    await card.getByText("Health: healthy", { exact: true }).waitFor();

    const webui = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "webui", exact: true }) });
    await webui.getByText("Settings of webui", { exact: true }).click();
    await webui.getByLabel("Log each request", { exact: true }).waitFor();
    await screenshot(page, "plugins-settings");
  });
});
