/**
 * The Workspace section in a real Chromium: the agent's folder browsed, a file removed after the confirming
 * second click, and the commands the agent ran listed.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { dashboardSkip, newPage, openDashboard, openTab } from "../fixtures/browser.js";
import { webDaemonForSuite } from "../fixtures/webui.js";

describe("the workspace in a real browser", { skip: dashboardSkip }, () => {
  const suite = webDaemonForSuite({}, async (web) => {
    const ws = join(web.daemon.paths.root, "workspace");
    mkdirSync(join(ws, "notes"), { recursive: true });
    writeFileSync(join(ws, "notes", "菠萝.md"), "# pineapple\n");
    web.llm.enqueue({ toolCalls: [{ name: "cmd_run", arguments: { command: "uname -s" } }] }, { text: "Linux" });
    await web.json("POST", "/api/v1/chat", { message: "kernel?" });
  });

  test("folders are browsed, a file is removed after a second click, and the agent's commands are listed", async (t) => {
    const { web } = suite;
    const page = await newPage(t);
    await openDashboard(page, web.base, suite.cookie);
    await openTab(page, "Workspace");
    await page.getByRole("button", { name: "notes/", exact: true }).click();
    await page.getByText("菠萝.md", { exact: true }).waitFor();
    const link = page.getByRole("link", { name: "Download", exact: true });
    assert.equal(await link.getAttribute("href"), `/api/v1/workspace/file?path=${encodeURIComponent("notes/菠萝.md")}`);
    await page.getByRole("button", { name: "Delete 菠萝.md", exact: true }).click();
    await page.getByRole("button", { name: "Really delete 菠萝.md?", exact: true }).click();
    await page.getByText("The workspace is empty.", { exact: false }).waitFor();
    assert.equal(existsSync(join(web.daemon.paths.root, "workspace", "notes", "菠萝.md")), false);
    await page.getByText("uname -s", { exact: true }).waitFor();
    await page.getByText("exit 0", { exact: true }).waitFor();
  });
});
