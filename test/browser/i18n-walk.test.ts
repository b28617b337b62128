/**
 * Every visible string of the dashboard comes from its i18n tables, in both languages: for each section
 * (and the login view, and the phone menu) the test walks the page's visible text, and the texts of its
 * placeholders, labels and options, and fails on any that is not a message of the UI's language (a
 * template's filled-in form counts). What is data, not UI text (names, values, keys, a conversation, dates
 * in <time>), is marked translate="no" and skipped, so a string typed into a component by hand, or one
 * left in English in the Chinese UI, is caught. Dates are checked to be in the UI's language as well.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { MESSAGES } from "../../web/src/messages.js";
import { dashboardSkip, newPage, openDashboard, openTab, sendChat } from "../fixtures/browser.js";
import { waitFor } from "../fixtures/wait.js";
import { webDaemonForSuite } from "../fixtures/webui.js";

type Lang = keyof typeof MESSAGES;
const ZONE = "Asia/Shanghai";
const LOCALE: Record<Lang, string> = { en: "en-US", zh: "zh-CN" };
const SECTIONS: Record<Lang, string[]> = {
  en: ["Overview", "Chat", "Plugins", "Memory", "Knowledge", "Settings", "Kernel"],
  zh: ["概览", "聊天", "插件", "记忆", "知识库", "设置", "内核"],
};

/** The page's own text: visible text nodes and the texts of placeholders, labels, titles and options. */
const WALK = `(() => {
  const out = [];
  const isData = (el) => !el || el.closest('[translate="no"], script, style, time, textarea');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue.trim();
    const el = n.parentElement;
    if (!text || isData(el) || el.tagName === "OPTION" || !el.checkVisibility()) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll("[placeholder], [aria-label], [title], select")) {
    if (isData(el) || !el.checkVisibility()) continue;
    for (const a of ["placeholder", "aria-label", "title"]) {
      const v = (el.getAttribute(a) || "").trim();
      if (v) out.push(v);
    }
    if (el.tagName === "SELECT") for (const o of el.options) if (!isData(o) && o.text.trim()) out.push(o.text.trim());
  }
  return out;
})()`;

/**
 * Each message of the language as a whole-text pattern: a `{name}` stands for any data, and a message may
 * end in a colon where it labels what follows ("Attached: <file>").
 */
function patterns(lang: Lang): RegExp[] {
  return Object.values(MESSAGES[lang])
    .filter((m): m is string => typeof m === "string" && m.trim() !== "")
    .map((m) => {
      const parts = m
        .trim()
        .split(/\{\w+\}/)
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      return new RegExp(`^${parts.join("[\\s\\S]+?")}[:：]?$`, "u");
    });
}

/** Text that is no words: numbers, punctuation, symbols (a count, ": ", "—"). */
const NO_WORDS = /^[\p{N}\p{P}\p{S}\s]+$/u;
/** A span of time as format.ts writes it in each language (uptime): "2h 5m", "2小时5分". */
const DURATION: Record<Lang, RegExp> = { en: /^\d+[dhms](?: \d+[dhms])*$/, zh: /^(?:\d+(?:天|小时|分|秒))+$/ };

async function untranslated(page: Page, lang: Lang): Promise<string[]> {
  const known = patterns(lang);
  const texts = await page.evaluate<string[]>(WALK);
  return [...new Set(texts)].filter(
    (text) => !NO_WORDS.test(text) && !DURATION[lang].test(text) && !known.some((p) => p.test(text)),
  );
}

/** The Memory section's dates (its timeline has the walk's chat turn) in the language and the agent's zone. */
async function datesIn(page: Page, lang: Lang): Promise<void> {
  const times = page.locator("time");
  await times.first().waitFor();
  const format = new Intl.DateTimeFormat(LOCALE[lang], { dateStyle: "medium", timeStyle: "short", timeZone: ZONE });
  for (const time of await times.all()) {
    const at = Date.parse((await time.getAttribute("datetime")) ?? "");
    assert.equal(await time.textContent(), format.format(at), `a date in the ${lang} UI`);
  }
  if (lang === "zh") assert.match((await times.first().textContent()) ?? "", /年.*月.*日/);
}

describe("every visible string comes from the i18n tables", { skip: dashboardSkip }, () => {
  // Dates are shown in the agent's zone, not the browser's (UTC here): one eight hours ahead shows it.
  const suite = webDaemonForSuite({}, async (web) => {
    web.daemon.config.set("core.agent.timezone", ZONE);
    // A daemon with some of everything to show: a conversation, a fact in the graph, a document, a
    // knowledge item, a second LLM source.
    await web.json("PUT", `/api/v1/knowledge/item?path=${encodeURIComponent("notes/walk")}`, { content: "# Walk\n" });
    const second = await web.json("PUT", "/api/v1/settings", {
      changes: { "core.llm.sources.spare.base_url": web.llm.url, "core.llm.sources.spare.model": "spare-model" },
    });
    assert.equal(second.status, 200);
    for (const line of ["I work at Vestas.", "My sister Anna lives in Aarhus."]) {
      web.llm.enqueue({ text: "Noted." });
      await web.daemon.agent.injectInputSync("webui", "webui", line);
    }
    const memory = web.daemon.host.memory;
    assert.ok(memory, "memory is not running");
    await waitFor(
      async () => {
        await memory.memory.runLoop("distill");
        return (await web.json("GET", "/api/v1/memory/graph")).body.edges.length > 0;
      },
      "a fact in the graph",
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  });

  for (const lang of ["en", "zh"] as const) {
    test(`in ${lang}: every section, the login view and the phone menu`, async (t) => {
      const locale = lang === "zh" ? "zh-CN" : "en-US";
      const found: Record<string, string[]> = {};
      const login = await newPage(t, { locale, name: `login-${lang}` });
      await login.goto(`${suite.web.base}/login`);
      await login.getByRole("button", { name: MESSAGES[lang].loginButton, exact: true }).waitFor();
      const atLogin = await untranslated(login, lang);
      if (atLogin.length > 0) found.login = atLogin;

      const page = await newPage(t, { locale, name: `walk-${lang}` });
      await openDashboard(page, suite.web.base, suite.cookie);
      if (lang === "en") await sendChat(page, "hello from the walk");
      for (const section of SECTIONS[lang]) {
        await openTab(page, section, MESSAGES[lang].menu);
        await page.getByText(MESSAGES[lang].loading).first().waitFor({ state: "detached" });
        const missing = await untranslated(page, lang);
        if (missing.length > 0) found[section] = missing;
        if (section === SECTIONS[lang][3]) await datesIn(page, lang);
      }

      const phone = await newPage(t, { locale, viewport: { width: 390, height: 844 }, name: `menu-${lang}` });
      await openDashboard(phone, suite.web.base, suite.cookie);
      await phone.getByRole("button", { name: MESSAGES[lang].menu, exact: true }).click();
      const inMenu = await untranslated(phone, lang);
      if (inMenu.length > 0) found.menu = inMenu;
      assert.deepEqual(found, {});
    });
  }
});
