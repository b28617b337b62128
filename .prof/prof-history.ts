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
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: web.base }]);
const page = await context.newPage();
await page.goto(`${web.base}/`);
await page.getByRole("tab", { name: "Chat", exact: true }).click();
const q = (t: string) => `document.querySelector(".chat-turns > article:first-of-type")?.textContent?.includes(${JSON.stringify(t)}) === true`;
await waitFor(() => page.evaluate<boolean>(`document.querySelectorAll(".chat-turns > article").length >= 50`), "open", { timeoutMs: 30000 });
for (let p = 1; p <= 10; p++) {
  await page.locator("button.load-earlier").click();
  await waitFor(() => page.evaluate<boolean>(q(`Answer ${TURNS - (p + 1) * 50}.`)), "page", { timeoutMs: 30000 });
}
const cdp = await context.newCDPSession(page);
await cdp.send("Profiler.enable");
await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
await cdp.send("Profiler.start");
const t0 = performance.now();
for (let p = 11; p <= 20; p++) {
  await page.locator("button.load-earlier").click();
  await waitFor(() => page.evaluate<boolean>(q(`Answer ${TURNS - (p + 1) * 50}.`)), "page", { timeoutMs: 30000 });
  await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
}
console.log("10 pages", Math.round(performance.now() - t0), "ms");
const { profile } = (await cdp.send("Profiler.stop")) as { profile: any };
const self = new Map<string, number>();
const byId = new Map(profile.nodes.map((n: any) => [n.id, n]));
const dt = profile.timeDeltas as number[];
profile.samples.forEach((id: number, i: number) => {
  const n: any = byId.get(id);
  const key = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
});
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(v.toFixed(1).padStart(8), k);
await browser.close();
await web.stop();
