import { join } from "node:path";
import { openTranscriptsDb } from "../src/transcripts/database.js";
import { TranscriptStore } from "../src/transcripts/store.js";
import { launchChromium } from "../test/fixtures/chromium.js";
import { tempDir } from "../test/fixtures/temp-dir.js";
import { waitFor } from "../test/fixtures/wait.js";
import { startWebDaemon } from "../test/fixtures/webui.js";
const TURNS = 10000;
const dataDir = tempDir("ha-prof-");
const db = openTranscriptsDb(join(dataDir, "transcripts.db"));
const store = new TranscriptStore(db, { maxDays: () => 3650, maxBytes: () => 1e12 });
db.transaction(() => {
  for (let n = 0; n < TURNS; n++) {
    const requestId = `seed-${n}`;
    const channel = n % 7 === 0 ? "cli" : "webui";
    store.begin({ requestId, source: channel, channel, input: `question ${n}: 第${n}个问题，关于菠萝和 pineapples`, noMemory: false });
    if (n % 10 === 0) {
      store.item(requestId, { type: "tool", id: `c${n}`, name: "files_read", args: '{"path":"notes.md"}' });
      store.item(requestId, { type: "tool", id: `c${n}`, name: "files_read", args: "", status: "ok", result: `line ${n}`, durationMs: 3 });
    }
    store.end(requestId, { reply: `Answer ${n}. **Bold** words, a list:\n\n- one\n- two\n\n回答第${n}个。` });
  }
})();
db.close();
const web = await startWebDaemon({ dataDir });
const browser = await launchChromium();
const { cookie } = await web.login();
const eq = cookie.indexOf("=");
for (let run = 0; run < 6; run++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: web.base }]);
  const page = await context.newPage();
  await page.goto(`${web.base}/`);
  await page.getByRole("tab", { name: "Chat", exact: true }).waitFor();
  await page.evaluate(`(() => {
    window.__t = {};
    document.addEventListener("click", () => { window.__t.click = performance.now(); }, true);
    const obs = new MutationObserver(() => {
      const arts = document.querySelectorAll(".chat-turns > article");
      if (arts.length > 0 && !window.__t.articles) window.__t.articles = performance.now();
      const last = document.querySelector(".chat-turns > article:last-of-type .markdown");
      if (last && last.textContent.includes("Answer 9999.") && !window.__t.done) window.__t.done = performance.now();
    });
    obs.observe(document.body, { childList: true, subtree: true, characterData: true });
  })()`);
  const t0 = performance.now();
  await page.getByRole("tab", { name: "Chat", exact: true }).click();
  await waitFor(() => page.evaluate<boolean>(`document.querySelector(".chat-turns > article:last-of-type")?.textContent?.includes("Answer 9999.") === true`), "open", { timeoutMs: 30000, intervalMs: 5 });
  const outside = Math.round(performance.now() - t0);
  const t = await page.evaluate<any>(`(() => { const r = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/v1/")).map((e) => [e.name.split("/api/v1/")[1], Math.round(e.startTime - window.__t.click), Math.round(e.responseEnd - window.__t.click)]); return { articles: Math.round(window.__t.articles - window.__t.click), done: Math.round(window.__t.done - window.__t.click), r }; })()`);
  console.log(outside, JSON.stringify(t));
  await context.close();
}
await browser.close();
await web.stop();
