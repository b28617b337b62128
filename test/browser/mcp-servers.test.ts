/**
 * The Plugins tab's MCP servers in a real Chromium against a real daemon and the fixture MCP server over
 * stdio: Claude Desktop JSON pasted as is adds the server, which reaches "running" with its tools listed;
 * a tool unchecked leaves the agent's tools; after a reload the form shows the env secret masked and an
 * unrelated edit keeps the stored secret; Restart starts it anew; a refused list shows the daemon's reason.
 * Driven by roles and accessible names, with axe's check on the panel.
 */
import assert from "node:assert/strict";
import { describe, type TestContext, test } from "node:test";
import type { Page } from "playwright-core";
import {
  axeViolations,
  dashboardSkip,
  errorsOf,
  newPage,
  openDashboard,
  openTab,
  screenshot,
} from "../fixtures/browser.js";
import { entryPath, NODE_FLAGS } from "../fixtures/node-entry.js";
import { tempDir } from "../fixtures/temp-dir.js";
import { waitFor } from "../fixtures/wait.js";
import { webDaemonForSuite } from "../fixtures/webui.js";

const SECRET = "fixture-secret-0123456789-WXYZ";
const SNIPPET = {
  mcpServers: {
    fixture: {
      command: process.execPath,
      args: [...NODE_FLAGS, entryPath("test/fixtures/mcp-server.ts"), "stdio"],
      env: { FIXTURE_TOKEN: SECRET },
    },
  },
};

describe("MCP servers in a real browser", { skip: dashboardSkip }, () => {
  const suite = webDaemonForSuite();
  const tools = () => suite.web.daemon.agent.tools.names();
  /** The servers as stored: the page writes a new list in Claude Desktop's shape. */
  const stored = () => JSON.parse(suite.web.daemon.config.get("plugin.mcp.servers") ?? "{}").mcpServers;

  const openPanel = async (t: TestContext) => {
    const page = await newPage(t, { bypassCSP: true });
    await openDashboard(page, suite.web.base, suite.cookie);
    await openTab(page, "Plugins");
    const panel = page.getByRole("region", { name: "MCP servers" });
    await panel.waitFor();
    return { page, panel };
  };
  const cardOf = (page: Page) =>
    page
      .getByRole("region", { name: "MCP servers" })
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { name: "fixture", exact: true }) });

  test("pasted Claude Desktop JSON adds a server that runs; an unchecked tool leaves the agent's tools", async (t) => {
    const { page, panel } = await openPanel(t);
    await panel.getByText("No MCP servers yet: add one, or paste a server's JSON.").waitFor();
    await panel.getByText("Paste JSON", { exact: true }).click();
    await panel.getByLabel("A server's JSON, as its README gives it").fill(JSON.stringify(SNIPPET, null, 2));
    await panel.getByRole("button", { name: "Add these servers", exact: true }).click();
    await panel.getByRole("status").getByText("Added: fixture.").waitFor();

    const card = cardOf(page);
    await card.getByText("running", { exact: true }).waitFor({ timeout: 30_000 });
    await card
      .getByText(/^fixture /)
      .first()
      .waitFor();
    await card.getByText("Its 3 tools", { exact: true }).click();
    const weather = card.getByRole("checkbox", { name: "weather", exact: true });
    await weather.waitFor();
    assert.ok(await weather.isChecked());
    await card.getByText("read-only", { exact: true }).first().waitFor();
    assert.deepEqual(await axeViolations(page), []);

    await weather.click();
    await panel.getByRole("status").getByText("Tool weather of fixture is no longer offered to the agent.").waitFor();
    await waitFor(() => !tools().includes("fixture_weather"), "fixture_weather to leave the agent's tools", {
      timeoutMs: 10_000,
    });
    assert.ok(tools().includes("fixture_grow"), "the other tools stay");
    assert.deepEqual(stored().fixture.disabledTools, ["weather"]);
    await waitFor(async () => !(await weather.isChecked()), "the weather checkbox unchecked");

    // Pasting the same name again asks before it replaces.
    await panel.getByLabel("A server's JSON, as its README gives it").fill(JSON.stringify(SNIPPET));
    await panel.getByRole("button", { name: "Add these servers", exact: true }).click();
    await panel
      .getByText("The list already has fixture: press Replace them to overwrite, or change the JSON.")
      .waitFor();
    assert.deepEqual(stored().fixture.disabledTools, ["weather"], "nothing was replaced yet");
    await screenshot(page, "mcp-servers");
    assert.deepEqual(errorsOf(page), []);
  });

  test("after a reload the env secret shows masked; an unrelated edit keeps it; Restart starts the server anew", async (t) => {
    const { page, panel } = await openPanel(t);
    const card = cardOf(page);
    await card.getByText("running", { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Edit server fixture", exact: true }).click();
    const form = page.getByRole("form", { name: "Edit server fixture" });
    const value = form.getByLabel("Value 1", { exact: true });
    assert.equal(await value.getAttribute("placeholder"), "****WXYZ");
    assert.equal(await value.inputValue(), "");
    assert.equal(await form.getByLabel("Name 1", { exact: true }).inputValue(), "FIXTURE_TOKEN");
    assert.ok(!(await page.content()).includes(SECRET), "the secret reached the page");

    const cwd = tempDir("ha-mcp-cwd-");
    await form.getByLabel("Working folder", { exact: true }).fill(cwd);
    await form.getByRole("button", { name: "Save server", exact: true }).click();
    await panel.getByRole("status").getByText("Server fixture was saved.").waitFor();
    const saved = stored().fixture;
    assert.equal(saved.env.FIXTURE_TOKEN, SECRET, "the stored secret was not kept");
    assert.equal(saved.cwd, cwd);
    assert.deepEqual(saved.disabledTools, ["weather"]);
    await card.getByText("running", { exact: true }).waitFor({ timeout: 30_000 });

    await page.getByRole("button", { name: "Restart server fixture", exact: true }).click();
    await panel.getByRole("status").getByText("Server fixture is starting anew.").waitFor();
    await card.getByText("running", { exact: true }).waitFor({ timeout: 30_000 });
    await waitFor(() => tools().includes("fixture_grow"), "the fixture's tools back after the restart", {
      timeoutMs: 30_000,
    });
    assert.ok(!tools().includes("fixture_weather"), "a restart brought back a tool switched off");
    assert.deepEqual(errorsOf(page), []);
  });

  test("a list the daemon refuses shows why; Remove takes the server and its tools away", async (t) => {
    const { page, panel } = await openPanel(t);
    await page.getByRole("button", { name: "Add a server", exact: true }).click();
    const form = page.getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Name", { exact: true }).fill("remote");
    await form.getByLabel("A URL (HTTP)", { exact: true }).check();
    await form.getByLabel("URL", { exact: true }).fill("http://127.0.0.1:9/mcp");
    await form.getByRole("button", { name: "Add a row", exact: true }).click();
    // A header name the schema refuses: the refusal says where in the list.
    await form.getByLabel("Name 1", { exact: true }).fill("Bad=Name");
    await form.getByLabel("Value 1", { exact: true }).fill("token-0123456789");
    await form.getByRole("button", { name: "Save server", exact: true }).click();
    await panel
      .getByRole("alert")
      .getByText(/\/mcpServers\/remote\/headers/)
      .waitFor();
    // A mask with nothing stored behind it: the daemon refuses to store "****" as the credential.
    await form.getByLabel("Name 1", { exact: true }).fill("Authorization");
    await form.getByLabel("Value 1", { exact: true }).fill("****");
    await form.getByRole("button", { name: "Save server", exact: true }).click();
    await panel
      .getByRole("alert")
      .getByText(/^That looks like a hidden key/)
      .waitFor();
    assert.equal(stored().remote, undefined);
    await form.getByRole("button", { name: "Cancel", exact: true }).click();

    await page.getByRole("button", { name: "Remove server fixture", exact: true }).click();
    await page.getByRole("button", { name: "Yes, remove fixture", exact: true }).click();
    await panel.getByRole("status").getByText("Server fixture was removed.").waitFor();
    await waitFor(() => !tools().some((name) => name.startsWith("fixture_")), "the fixture's tools to go", {
      timeoutMs: 10_000,
    });
    assert.equal(stored().fixture, undefined);
    assert.ok(
      errorsOf(page).every((e) => e === "http 400 PUT /api/v1/settings"),
      errorsOf(page).join("\n"),
    );
  });
});
