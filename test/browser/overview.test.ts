/**
 * The Overview's chart of today's turns and tokens per LLM source, in a real Chromium against a real daemon
 * whose fake LLM reports token usage: the empty state, the chart arriving soon after two turns end (the
 * tab reloads on agent_output, without waiting for its 15 s poll), its table's figures, the Chinese labels, the colours following the theme, no CSP violation
 * (the chart library sets styles only through the CSSOM), axe in both themes, and a phone-sized viewport
 * without sideways scrolling. Every test leaves a screenshot under its temp dir.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Locator, Page } from "playwright-core";
import {
  axeViolations,
  dashboardSkip,
  errorsOf,
  newPage,
  openDashboard,
  screenshot,
  scrollsHorizontally,
} from "../fixtures/browser.js";
import { tempDir } from "../fixtures/temp-dir.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

const TABLE_EN = "Today's use per LLM source (tokens as reported by the provider)";
const TABLE_ZH = "今天各 LLM 来源的用量（词元数以提供方报告为准）";
/** The Overview reloads /api/v1/kernel a second after a turn ends; well under its 15 s poll. */
const REFRESH_MS = 10_000;

/** Records every CSP violation the page reports, from before its first script runs. */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(
    `window.__cspViolations = []; document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));`,
  );
  return () => page.evaluate<string[]>("window.__cspViolations ?? []");
}

/**
 * Pixels of the canvas under `plot` drawn in the theme's first series colour (--chart-1): > 0 means the
 * bars are there, not just the axes.
 */
async function barPixels(page: Page, plot: Locator): Promise<number> {
  const canvas = plot.locator("canvas").first();
  await canvas.waitFor({ state: "attached" });
  const hex = await page.evaluate<string>(
    `getComputedStyle(document.documentElement).getPropertyValue("--chart-1").trim()`,
  );
  return canvas.evaluate((el: PixelSource, colour: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16));
    const d = el.getContext("2d").getImageData(0, 0, el.width, el.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - r) < 6 && Math.abs(d[i + 1] - g) < 6 && Math.abs(d[i + 2] - b) < 6 && d[i + 3] > 200) n++;
    }
    return n;
  }, hex);
}

/** The part of a canvas element barPixels reads (the Node typecheck has no DOM library). */
interface PixelSource {
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}

/** The cells of the usage table's row for `source`, header cell first. */
async function usageRow(page: Page, caption: string, source: string): Promise<string[]> {
  const row = page.getByRole("table", { name: caption }).getByRole("row").filter({ hasText: source });
  await row.waitFor();
  return (await row.getByRole("cell").allTextContents()).map((s) => s.trim());
}

describe("the Overview's usage chart in a real browser", { skip: dashboardSkip }, () => {
  let web: WebDaemon;
  let cookie: string;
  let turns: Promise<void> | undefined;
  before(async () => {
    web = await startWebDaemon({ webuiOnly: true });
    cookie = (await web.login()).cookie;
  });
  after(() => web?.stop());

  /** Two chat turns through the API, once for the whole file, with the usage the fake LLM reports. */
  function twoTurns(): Promise<void> {
    turns ??= (async () => {
      web.llm.enqueue(
        { text: "one", usage: { prompt_tokens: 120, completion_tokens: 30 } },
        { text: "two", usage: { prompt_tokens: 200, completion_tokens: 50 } },
      );
      for (const message of ["first", "second"]) {
        const res = await web.json("POST", "/api/v1/chat", { message });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
    })();
    return turns;
  }

  test("before any turn it says so (en, zh); after two turns the chart arrives without a reload", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await page.getByText("No turns today.", { exact: true }).waitFor();
    await page.getByLabel("Language", { exact: true }).selectOption({ label: "中文" });
    await page.getByText("今天还没有轮次。", { exact: true }).waitFor();
    await twoTurns();
    // No reload of the page: the end of the turns brings the figures.
    const plot = page.getByRole("img", { name: /^每小时轮次：env 2/ });
    await plot.waitFor({ timeout: REFRESH_MS });
    await page.getByRole("img", { name: /^每小时词元：env 400/ }).waitFor();
    await page.getByRole("heading", { name: "今天的轮次和词元", exact: true }).waitFor();
    assert.deepEqual(await usageRow(page, TABLE_ZH, "env"), ["2", "320", "80"]);
    const headers = await page.getByRole("table", { name: TABLE_ZH }).getByRole("columnheader").allTextContents();
    assert.deepEqual(headers, ["来源", "轮次", "提示词元", "生成词元"]);
    assert.ok((await barPixels(page, plot)) > 0, "the bars are drawn");
    await screenshot(page, "overview-usage-zh");
  });

  test("the chart is drawn, the table lists the source with 2 turns and its tokens, and the CSP holds", async (t) => {
    await twoTurns();
    const page = await newPage(t);
    const cspViolations = await watchCsp(page);
    await openDashboard(page, web.base, cookie);
    await page.getByRole("timer", { name: "Uptime" }).waitFor();
    const turnsPlot = page.getByRole("img", { name: /^Turns per hour: env 2, most at \d+:00$/ });
    const tokensPlot = page.getByRole("img", { name: /^Tokens per hour: env 400, most at \d+:00$/ });
    assert.deepEqual(await usageRow(page, TABLE_EN, "env"), ["2", "320", "80"]);
    assert.ok((await barPixels(page, turnsPlot)) > 0, "turns: the bars are drawn");
    assert.ok((await barPixels(page, tokensPlot)) > 0, "tokens: the bars are drawn");

    // The dark theme's colours replace the light ones in the drawing, not only around it.
    await page.getByLabel("Theme", { exact: true }).selectOption({ label: "Light" });
    await page.waitForFunction(`document.documentElement.dataset.theme === "light"`);
    const light = await barPixels(page, turnsPlot);
    await page.getByLabel("Theme", { exact: true }).selectOption({ label: "Dark" });
    await page.waitForFunction(`document.documentElement.dataset.theme === "dark"`);
    assert.ok(light > 0);
    assert.ok((await barPixels(page, turnsPlot)) > 0, "after the switch the bars are drawn in the dark colour");

    await page.locator("summary", { hasText: "By hour" }).click();
    const hourRows = page.getByRole("table", { name: "By hour" }).getByRole("row");
    assert.ok((await hourRows.count()) >= 2, "a header row and the hour (or hours) of the two turns");
    await screenshot(page, "overview-usage");
    assert.deepEqual(await cspViolations(), []);
    assert.deepEqual(errorsOf(page), []);
  });

  for (const theme of ["Light", "Dark"]) {
    test(`axe finds no serious or critical violation on the Overview with the chart (${theme.toLowerCase()})`, async (t) => {
      await twoTurns();
      const page = await newPage(t, { bypassCSP: true });
      await openDashboard(page, web.base, cookie);
      await page.getByLabel("Theme", { exact: true }).selectOption({ label: theme });
      await page
        .getByRole("img", { name: /^Turns per hour/ })
        .locator("canvas")
        .first()
        .waitFor({ state: "attached" });
      await page.locator("summary", { hasText: "By hour" }).click();
      assert.deepEqual(await axeViolations(page), []);
      await screenshot(page, `overview-usage-axe-${theme}`);
    });
  }

  test("at 390×844 the Overview with the chart does not scroll sideways", async (t) => {
    await twoTurns();
    const page = await newPage(t, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await openDashboard(page, web.base, cookie);
    const plot = page.getByRole("img", { name: /^Tokens per hour/ });
    await plot.locator("canvas").first().waitFor({ state: "attached" });
    await page.locator("summary", { hasText: "By hour" }).click();
    assert.equal(await scrollsHorizontally(page), false);
    const box = await plot.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the chart fits the screen: ${JSON.stringify(box)}`);
    await screenshot(page, "overview-usage-narrow");
  });
});

describe("the Overview's usage with 17 sources at 390 px (a long right-to-left name among them)", {
  skip: dashboardSkip,
}, () => {
  /** 200 characters, the meter's bound for a name, with a right-to-left override and no space to break at. */
  const LONG = `\u202eevil-${"n".repeat(194)}`;
  let web: WebDaemon;
  before(async () => {
    const dataDir = tempDir("ha-overview-many-");
    // The daemon's zone defaults to UTC here; the meter keeps 16 names and adds the rest under "(other)".
    const day = new Intl.DateTimeFormat("en-CA", { timeZone: "UTC" }).format(new Date());
    const names = [...Array.from({ length: 15 }, (_, i) => `src${15 - i}`), LONG, "late-a", "late-b"];
    const hour = { hour: 0, turns: 1, calls: 1, callsWithoutUsage: 0, promptTokens: 123456, completionTokens: 7890 };
    const sources = names.map((name) => ({ name, hours: [hour] }));
    writeFileSync(join(dataDir, "usage.json"), JSON.stringify({ format: 1, days: [{ day, sources }] }));
    web = await startWebDaemon({ webuiOnly: true, dataDir });
  });
  after(() => web?.stop());

  test("the figures stay on screen, sources sort naturally, each has its own swatch, the name is isolated", async (t) => {
    const page = await newPage(t, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await openDashboard(page, web.base, (await web.login()).cookie);
    const table = page.getByRole("table", { name: TABLE_EN });
    await table.getByRole("row").nth(17).waitFor();
    const heads = (await table.getByRole("rowheader").allTextContents()).map((s) => s.trim());
    assert.deepEqual(heads.filter((h) => h.startsWith("src")).slice(0, 3), ["src1", "src2", "src3"]);
    assert.ok(heads.indexOf("src2") < heads.indexOf("src10"), "src2 before src10");
    assert.equal(heads.at(-1), "(other)");
    assert.equal(heads.length, 17);
    const swatches = await page.evaluate<string[]>(
      `[...document.querySelectorAll(".usage-table .swatch")].map((s) => s.className)`,
    );
    assert.equal(new Set(swatches).size, 17, `every source its own colour: ${swatches.join(",")}`);

    assert.equal(await scrollsHorizontally(page), false);
    const overflow = await page.evaluate<number>(
      `(() => { const box = document.querySelector(".usage-table").parentElement; return box.scrollWidth - box.clientWidth; })()`,
    );
    assert.ok(overflow <= 1, `the usage table fits its box (${overflow} px over)`);
    const longRow = table.getByRole("row").filter({ hasText: "evil-" });
    for (const cell of await longRow.getByRole("cell").all()) {
      const box = await cell.boundingBox();
      assert.ok(box && box.x + box.width <= 390, `a figure beside the long name is on screen: ${JSON.stringify(box)}`);
    }
    assert.equal(await longRow.locator("bdi").textContent(), LONG, "the full name is shown");
    const bidi = await page.evaluate<string>(
      `getComputedStyle(document.querySelector(".usage-table bdi")).unicodeBidi`,
    );
    assert.equal(bidi, "isolate");
    await page.locator("summary", { hasText: "By hour" }).click();
    assert.equal(await scrollsHorizontally(page), false);
    await screenshot(page, "overview-usage-17-sources-narrow");
    assert.deepEqual(errorsOf(page), []);
  });
});
