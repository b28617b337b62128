/**
 * The tabs that only had accessibility and hostile-text checks, used in a real Chromium against one real
 * daemon: Knowledge (tree, create, open, edit, delete with confirmation), Memory's "what would be injected"
 * (tokens per section as the API counts them) and its per-fact Delete on a fact told in chat, and Kernel
 * (providers with a cooldown, SSE clients, plugins). Driven by roles and accessible names; each test saves
 * a screenshot. The Kernel test runs last: it leaves the only LLM source cooling down.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { dashboardSkip, newPage, openDashboard, screenshot, sendChat } from "../fixtures/browser.js";
import { waitFor } from "../fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

const NEW_ITEM = "笔记/周末.md";
const NEW_CONTENT = "# 周末\n\n周六去爬山，周日在家包饺子。\n";

interface Section {
  name: string;
  tokens: number;
  budget: number;
}

describe("the Knowledge, Memory and Kernel tabs at work", { skip: dashboardSkip }, () => {
  let web: WebDaemon;
  let cookie: string;

  before(async () => {
    web = await startWebDaemon();
    cookie = (await web.login()).cookie;
  });
  after(() => web?.stop());

  const itemOf = async (path: string) => web.json("GET", `/api/v1/knowledge/item?path=${encodeURIComponent(path)}`);

  /** The text of every section the next prompt would carry for `question`. */
  const injected = async (question: string) => {
    const res = await web.json("GET", `/api/v1/memory/context?q=${encodeURIComponent(question)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.sections as Array<{ text: string }>).map((s) => s.text).join("\n");
  };

  const envSource = async () =>
    (await web.json("GET", "/api/v1/kernel")).body.llm.find((s: { name: string }) => s.name === "env");

  const openTab = async (page: Page, name: string) => {
    await page.getByRole("tab", { name, exact: true }).click();
    await page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
  };

  test("Knowledge: the tree lists items; a Chinese item is created, opened, edited, saved and deleted", async (t) => {
    const existing = await web.json("PUT", `/api/v1/knowledge/item?path=${encodeURIComponent("recipes/bread")}`, {
      content: "# Bread\n\nFlour, water, salt, time.\n",
    });
    assert.equal(existing.status, 200, JSON.stringify(existing.body));
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await openTab(page, "Knowledge");
    const tree = page.getByRole("region", { name: "Items" });
    await tree.getByText("recipes", { exact: true }).waitFor();
    await tree.getByRole("button", { name: "bread", exact: true }).waitFor();

    await page.getByLabel("New item path", { exact: true }).fill(NEW_ITEM);
    await page.getByRole("button", { name: "Create", exact: true }).click();
    const editor = page.getByRole("region", { name: NEW_ITEM });
    await editor.waitFor();
    await tree.getByText("笔记", { exact: true }).waitFor();
    await tree.getByRole("button", { name: "周末.md", exact: true }).waitFor();

    await editor.getByLabel("Content (Markdown)", { exact: true }).fill(NEW_CONTENT);
    await editor.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const saved = await itemOf(NEW_ITEM);
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.content, NEW_CONTENT, "the API does not return what was saved");
    const root = web.daemon.config.get("core.knowledge.path") || join(web.daemon.paths.root, "knowledge");
    assert.equal(readFileSync(join(root, "笔记", "周末.md", "content.md"), "utf8"), NEW_CONTENT, "not on disk");

    // Opening another item and coming back reads the saved content from the server, not the draft.
    await tree.getByRole("button", { name: "bread", exact: true }).click();
    const bread = page.getByRole("region", { name: "recipes/bread" });
    await bread.waitFor();
    assert.match(await bread.getByLabel("Content (Markdown)", { exact: true }).inputValue(), /Flour, water/);
    await tree.getByRole("button", { name: "周末.md", exact: true }).click();
    await editor.waitFor();
    assert.equal(await editor.getByLabel("Content (Markdown)", { exact: true }).inputValue(), NEW_CONTENT);
    await screenshot(page, "knowledge-edited");

    await editor.getByRole("button", { name: "Delete", exact: true }).click();
    await editor.getByRole("button", { name: "Cancel", exact: true }).click();
    assert.equal((await itemOf(NEW_ITEM)).status, 200, "Cancel deleted the item");
    await editor.getByRole("button", { name: "Delete", exact: true }).click();
    await editor.getByRole("button", { name: `Delete for good: ${NEW_ITEM}`, exact: true }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `Deleted: ${NEW_ITEM}` })
      .waitFor();
    await tree.getByRole("button", { name: "周末.md", exact: true }).waitFor({ state: "detached" });
    assert.equal((await itemOf(NEW_ITEM)).status, 404, "the deleted item is still served");
    assert.ok(!existsSync(join(root, "笔记", "周末.md", "content.md")), "the deleted item is still on disk");
    await screenshot(page, "knowledge-deleted");
  });

  test("Memory: a fact told in chat, deleted with its confirmation, is not in the next prompt", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    web.llm.enqueue({ text: "Noted." });
    const told = await sendChat(page, "I work at Vestas.");
    await told.getByText("Noted.").waitFor();
    const memory = web.daemon.host.memory;
    assert.ok(memory, "memory is not running");
    // The turn reaches memory just after its reply reaches the page: distill until its fact is there.
    type Edge = { id: number; subject: string; relation: string; object: string };
    let fact: Edge | undefined;
    await waitFor(
      async () => {
        await memory.memory.runLoop("distill");
        const edges: Edge[] = (await web.json("GET", "/api/v1/memory/graph")).body.edges;
        fact = edges.find((e) => e.object.includes("Vestas"));
        return fact;
      },
      "the distiller to make a fact of the turn",
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    assert.ok(fact);
    const text = `${fact.subject} — ${fact.relation} → ${fact.object}`;
    // How the prompt's memory index names the fact (the question has to name one of its entities).
    const indexed = `${fact.subject} ${fact.relation} ${fact.object}`;
    const question = "Remind me: do I work at Vestas?";
    assert.ok((await injected(question)).includes(indexed), "the fact would not reach the prompt anyway");

    await openTab(page, "Memory");
    const facts = page.getByRole("list", { name: "Facts in the graph" });
    await facts.getByText(fact.object, { exact: true }).waitFor();
    await page.getByRole("button", { name: `Delete: ${text}`, exact: true }).click();
    await page.getByRole("button", { name: `Delete for good: ${text}`, exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Fact deleted." }).waitFor();
    await facts.getByText(fact.object, { exact: true }).waitFor({ state: "detached" });
    await screenshot(page, "memory-fact-deleted");
    const left = (await web.json("GET", "/api/v1/memory/graph")).body.edges;
    assert.ok(!left.some((e: { id: number }) => e.id === fact?.id), "the fact is still in the graph");

    const before = web.llm.requests.length;
    const next = await sendChat(page, question);
    await next.getByText("ok", { exact: true }).waitFor();
    const prompt = JSON.stringify(web.llm.requests.slice(before).map((r) => r.body));
    assert.ok(prompt.includes(question), "the next question never reached the LLM");
    assert.ok(!prompt.includes(indexed), "the deleted fact is still in the next prompt");
    // By design Delete corrects what memory knows, not what was said (Forget removes both): the words
    // told in chat stay on the conversation timeline.
    assert.ok(prompt.includes("I work at Vestas."), "the conversation itself lost the turn");
  });

  test("Memory: what would be injected lists each section with the tokens the API counts", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await openTab(page, "Memory");
    const question = "What do I do on weekends?";
    const preview = page.getByRole("region", { name: "What would be injected" });
    await preview.getByLabel("Question", { exact: true }).fill(question);
    await preview.getByRole("button", { name: "Preview", exact: true }).click();
    const expected = (await web.json("GET", `/api/v1/memory/context?q=${encodeURIComponent(question)}`)).body
      .sections as Section[];
    assert.ok(expected.length > 0, "the API lists no sections");
    const summaries = preview.locator("summary");
    await summaries.first().waitFor();
    assert.deepEqual(
      await summaries.allInnerTexts(),
      expected.map((s) => `${s.name}: ${s.tokens} / ${s.budget} tokens`),
    );
    await screenshot(page, "memory-preview");
  });

  test("Kernel: a failing source shows its cooldown; SSE clients count this page; plugins with their state", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await openTab(page, "Kernel");
    const providers = page.getByRole("region", { name: "Providers" });
    const envRow = providers.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "env" }) });
    await envRow.getByText("ready", { exact: true }).waitFor();

    const plugins = page.getByRole("region", { name: "Plugins" });
    const webuiRow = plugins.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "webui" }) });
    await webuiRow.getByText("running", { exact: true }).waitFor();
    await webuiRow.getByText("healthy", { exact: true }).waitFor();

    // A retry-after longer than the manager waits out cools the source down at once.
    web.llm.enqueue({ status: 429, retryAfter: 600 });
    await sendChat(page, "Anyone there?");
    await waitFor(async () => (await envSource()).cooldownUntil > Date.now(), "the source to cool down", {
      intervalMs: 50,
    });
    await openTab(page, "Kernel");
    await page.getByRole("button", { name: "Refresh", exact: true }).click();
    await envRow.getByText(/^cooling down until \d/).waitFor();

    // The page's event stream has been open since the dashboard loaded; the refreshed figures count it.
    const sse = page.getByRole("region", { name: "SSE clients" });
    const clients = (await web.json("GET", "/api/v1/kernel")).body.sse.clients as number;
    assert.ok(clients >= 1, `the kernel counts ${clients} SSE clients while this page has its stream open`);
    assert.match(((await sse.locator("dd").first().textContent()) ?? "").trim(), /^[1-9]\d* \/ \d+$/);
    await screenshot(page, "kernel-cooldown");
  });
});
