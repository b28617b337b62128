/**
 * Hostile text in every tab but Chat, in a real Chromium against a real daemon. Markup that would run a
 * handler (`<img onerror>`, `<svg onload>`), a `javascript:` Markdown link, a long unbroken string,
 * bidi-override and RTL text and mixed Chinese go into what the daemon stores and the dashboard shows: a
 * knowledge item (content and path), graph facts, a memory document (the model's doc_commit), the context
 * timeline (a chat turn sent through the API), a plugin's last error, a plugin's setting definition and
 * value, a core setting, and an LLM source's model name. On each tab no handler runs, the Content Security
 * Policy never has to refuse anything (so nothing tried to run), the text is shown as text, and at 390 px
 * nothing widens the page.
 *
 * The second test fills memory with 1,000 entities (one hub fact per entity) and the timeline with 1,000
 * events: the Memory tab says how much of the graph it draws, shows lists a page at a time, and no task
 * blocks the page for more than half a second.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { definePlugin } from "@homeagent/sdk";
import type { Page } from "playwright-core";
import {
  dashboardSkip,
  errorsOf,
  newPage,
  openDashboard,
  openTab,
  screenshot,
  scrollsHorizontally,
} from "../fixtures/browser.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

const IMG = "<img src=x onerror=window.__pwned=1>";
const SVG = "<svg onload=window.__pwned=2>";
const LINK = "[click me](javascript:window.__pwned=3)";
const BIDI = "\u202Egpj.exe\u202C שלום مرحبا";
const CJK = "中文混排 mixed 文本";
const LONG = `L${"o".repeat(1500)}ng`;
const ALL = [IMG, SVG, LINK, BIDI, CJK, LONG].join("\n\n");
const KB_PATH = `xss/中文 שלום مرحبا ${"w".repeat(60)}`;

/** A plugin that fails to start with hostile text, and one that declares a setting made of it. */
const PLUGINS = [
  {
    name: "xss-fails",
    capabilities: [],
    create: () =>
      definePlugin({
        name: "xss-fails",
        start: () => {
          throw new Error(`${IMG} ${SVG} ${LINK} ${BIDI} ${CJK} ${LONG}`);
        },
      }),
  },
  {
    name: "xss-settings",
    capabilities: [],
    create: () =>
      definePlugin({
        name: "xss-settings",
        start: (sdk) => {
          sdk.settings.define([
            {
              key: "note",
              type: "string",
              default: IMG,
              description: `${SVG} ${LINK} ${BIDI}`,
              displayName: `${CJK} ${SVG}`,
              placeholder: IMG,
              category: `xss ${IMG}`,
            },
          ]);
        },
      }),
  },
] as const;

/** Stores the payloads everywhere the dashboard reads them from. */
async function plant(web: WebDaemon): Promise<void> {
  const ok = async (what: string, res: Promise<{ status: number; body: unknown }>) => {
    const r = await res;
    assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body).slice(0, 300)}`);
  };
  await ok(
    "knowledge item",
    web.json("PUT", `/api/v1/knowledge/item?path=${encodeURIComponent(KB_PATH)}`, { content: `# ${CJK}\n\n${ALL}` }),
  );
  await ok(
    "facts",
    web.json("POST", "/api/v1/memory", {
      triples: [
        { subject: IMG, relation: SVG.slice(0, 20), object: "שלום مرحبا" },
        { subject: "中文混排", relation: "links", object: SVG },
      ],
      sentence: ALL.slice(0, 3000),
    }),
  );
  web.llm.enqueue(
    {
      toolCalls: [
        {
          id: "call_doc",
          name: "doc_commit",
          arguments: { content: ALL, summary: `${IMG} ${BIDI} ${CJK}`, tags: [SVG] },
        },
      ],
    },
    { text: `Kept. ${IMG}` },
  );
  await ok(
    "chat turn",
    web.json("POST", "/api/v1/chat", { message: `Keep this: ${IMG} ${SVG} ${LINK} ${BIDI} ${CJK}` }),
  );
  const docs = (await web.json("GET", "/api/v1/memory/docs")).body as { total: number };
  assert.ok(docs.total >= 1, "the model's doc_commit stored no document");
  await ok(
    "settings",
    web.json("PUT", "/api/v1/settings", {
      changes: {
        "core.agent.personal_prompt": ALL,
        "core.llm.sources.xsssrc.base_url": web.llm.url,
        "core.llm.sources.xsssrc.model": `${IMG} ${CJK}`,
        "core.llm.sources.xsssrc.priority": "9",
      },
    }),
  );
}

/** Records every CSP refusal the page reports, from now on. */
async function watchCsp(page: Page): Promise<void> {
  await page.evaluate(`document.addEventListener("securitypolicyviolation", (e) => {
    (window.__csp ||= []).push(e.violatedDirective + " " + (e.blockedURI || "inline"));
  })`);
}

async function assertClean(page: Page, where: string): Promise<void> {
  assert.equal(await page.evaluate("typeof window.__pwned"), "undefined", `${where}: a planted handler ran`);
  assert.deepEqual(await page.evaluate("window.__csp || []"), [], `${where}: the CSP had to refuse something`);
  const refused = errorsOf(page).filter((e) => /Content Security Policy|Refused to/i.test(e));
  assert.deepEqual(refused, [], `${where}: CSP reports in the console`);
}

/** The planted markup is on the page as text (not as an element). */
async function seesText(page: Page, text: string, where: string): Promise<void> {
  await page.getByText(text).first().waitFor({ state: "visible" });
  assert.equal(await page.locator("img[src='x'], svg[onload]").count(), 0, `${where}: planted markup became elements`);
}

describe("hostile text in the dashboard's tabs", { skip: dashboardSkip }, () => {
  test("no planted handler runs, the CSP refuses nothing, the text shows as text, 390 px never scrolls sideways", async (t) => {
    const web = await startWebDaemon({ plugins: [...PLUGINS] });
    t.after(() => web.stop());
    await plant(web);
    const { cookie } = await web.login();

    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      const page = await newPage(t, { viewport, name: `xss-${viewport.width}` });
      const requested: string[] = [];
      page.on("request", (r) => requested.push(new URL(r.url()).pathname));
      await openDashboard(page, web.base, cookie);
      await watchCsp(page);
      const at = (tab: string) => `${tab} at ${viewport.width} px`;
      const wide = async (tab: string) =>
        assert.equal(await scrollsHorizontally(page), false, `${at(tab)}: the page scrolls sideways`);

      await openTab(page, "Overview");
      await seesText(page, `${IMG} ${CJK}`, at("Overview"));
      await assertClean(page, at("Overview"));
      await wide("Overview");

      await openTab(page, "Plugins");
      const failed = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "xss-fails" }) });
      await failed.getByText(BIDI, { exact: false }).waitFor();
      assert.match((await failed.textContent()) ?? "", new RegExp(`${literal(IMG)} ${literal(SVG)}`));
      await assertClean(page, at("Plugins"));
      await wide("Plugins");
      await screenshot(page, "plugins");

      await openTab(page, "Memory");
      await page.getByRole("list", { name: "Facts in the graph" }).getByText(IMG).first().waitFor();
      await page.getByRole("list", { name: "Documents" }).getByText(`${IMG} ${BIDI} ${CJK}`).waitFor();
      await page
        .getByRole("list", { name: "Context timeline" })
        .getByText(`Keep this: ${IMG}`, { exact: false })
        .waitFor();
      await page.getByLabel("Search for", { exact: true }).fill("mixed");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.getByRole("list", { name: "Results" }).getByText(IMG, { exact: false }).first().waitFor();
      await page.getByLabel("Question", { exact: true }).fill("中文混排");
      await page.getByRole("button", { name: "Preview", exact: true }).click();
      await page.locator("details summary").first().waitFor();
      await seesText(page, IMG, at("Memory"));
      await assertClean(page, at("Memory"));
      await wide("Memory");
      await screenshot(page, "memory");

      await openTab(page, "Knowledge");
      await page.getByRole("button", { name: KB_PATH.split("/")[1] }).click();
      const content = page.getByLabel("Content (Markdown)", { exact: true });
      await content.waitFor();
      assert.equal(await content.inputValue(), `# ${CJK}\n\n${ALL}`);
      await assertClean(page, at("Knowledge"));
      await wide("Knowledge");

      await openTab(page, "Settings");
      assert.equal(await page.getByLabel("Persona", { exact: true }).inputValue(), ALL);
      const plugin = page.getByRole("form", { name: "Plugin xss-settings", exact: true });
      await plugin.waitFor();
      assert.equal(await plugin.getByLabel(`${CJK} ${SVG}`, { exact: true }).inputValue(), IMG);
      await plugin.getByText(`${SVG} ${LINK} ${BIDI}`, { exact: false }).waitFor();
      await page.getByRole("form", { name: "Source: xsssrc" }).waitFor();
      await assertClean(page, at("Settings"));
      await wide("Settings");

      await openTab(page, "Kernel");
      await seesText(page, `${IMG} ${CJK}`, at("Kernel"));
      await assertClean(page, at("Kernel"));
      await wide("Kernel");
      await screenshot(page, "kernel");

      assert.ok(!requested.includes("/x"), `${at("any tab")}: the planted <img src=x> was requested`);
    }
  });

  test("at 390 px the LLM sources table keeps words whole (Overview and Kernel)", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    const added = await web.json("PUT", "/api/v1/settings", {
      changes: {
        "core.llm.sources.secondaryprovider.base_url": web.llm.url,
        "core.llm.sources.secondaryprovider.model": "mixtralinstructversion01quantized",
      },
    });
    assert.equal(added.status, 200);
    const page = await newPage(t, { viewport: { width: 390, height: 844 } });
    await openDashboard(page, web.base, (await web.login()).cookie);
    for (const tab of ["Overview", "Kernel"]) {
      await openTab(page, tab);
      await page.getByText("mixtralinstructversion01quantized").first().waitFor();
      assert.deepEqual(await brokenWords(page, "table td, table th"), [], `${tab}: words broken mid-word`);
      assert.equal(await scrollsHorizontally(page), false, `${tab}: the page scrolls sideways`);
    }
    await screenshot(page, "sources-390");
  });

  test("1,000 entities and 1,000 timeline events: the tab says what it draws and no task blocks over 500 ms", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    for (let batch = 0; batch < 10; batch++) {
      const triples = Array.from({ length: 100 }, (_, i) => ({
        subject: "hub-entity",
        relation: "links",
        object: `node-${String(batch * 100 + i).padStart(4, "0")}`,
      }));
      triples.length = batch === 9 ? 99 : 100;
      assert.equal((await web.json("POST", "/api/v1/memory", { triples })).status, 200);
    }
    const page = await newPage(t);
    const events = Array.from({ length: 1000 }, (_, i) => ({
      id: i + 1,
      ts: Date.UTC(2026, 0, 1) + i * 60_000,
      kind: "user",
      source: "webui",
      channel: "webui",
      input: `event number ${i + 1} ${CJK}`,
      response: `reply ${i + 1}`,
      toolsUsed: [],
      noMemory: false,
    }));
    // The context window holds at most 10,000 events; its size here is the browser's concern, not the daemon's.
    await page.route("**/api/v1/memory/timeline", (route) => route.fulfill({ json: { events } }));
    await openDashboard(page, web.base, (await web.login()).cookie);
    await page.evaluate(`window.__longest = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
      }).observe({ type: "longtask", buffered: true })`);

    await page.getByRole("tab", { name: "Memory", exact: true }).click();
    await page.getByText("Showing the 100 most mentioned of 1000 entities.").waitFor();
    await page
      .getByRole("img", { name: /^Memory graph: 100 entities/ })
      .locator("canvas")
      .first()
      .waitFor();
    const facts = page.getByRole("list", { name: "Facts in the graph" });
    await facts.getByRole("listitem").nth(99).waitFor();
    assert.equal(await facts.getByRole("listitem").count(), 100, "the facts list draws one page");
    const timeline = page.getByRole("list", { name: "Context timeline" });
    await timeline.getByText("event number 1000", { exact: false }).waitFor();
    assert.equal(await timeline.getByRole("listitem").count(), 100, "the timeline draws one page, the newest");
    assert.equal(await timeline.getByText("event number 900 ", { exact: false }).count(), 0);
    await page.getByText("Showing 100 of 999.").waitFor();
    await page.getByText("Showing 100 of 1000.").waitFor();
    // Two frames after the layout: what the graph and the lists cost has been paid.
    await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
    const longest = await page.evaluate<number>("window.__longest");
    console.log(`memory tab with 1,000 entities and 1,000 events: longest main-thread task ${Math.round(longest)} ms`);
    assert.ok(longest < 500, `a main-thread task took ${Math.round(longest)} ms`);

    await page.getByRole("button", { name: "Show more" }).last().click();
    assert.equal(await timeline.getByRole("listitem").count(), 200);
    await screenshot(page, "memory-1000");
  });
});

/**
 * Words (runs without spaces) in the cells of `selector` that are drawn across two lines although the cell
 * is wide enough for them: a table squeezed so narrow that it breaks words mid-word.
 */
function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const broken = [];
    for (const cell of document.querySelectorAll(${JSON.stringify(selector)})) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const m of node.data.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1 && range.getBoundingClientRect().width < cell.clientWidth) broken.push(m[0]);
        }
      }
    }
    return broken;
  })()`);
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
