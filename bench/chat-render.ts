/**
 * How the Chat tab copes with a long streamed reply, with a real daemon on loopback whose scripted LLM
 * streams mixed zh/en Markdown (paragraphs, lists, code, tables, quotes) in 2000-character pieces, and
 * Debian's Chromium. Prints one JSON line per reply size (BENCH_CHAT_SIZES, default 100 KB and 1 MB):
 *
 * - `ms_to_rendered`: from pressing Send to the reply's Markdown being all on the page (data-rendered="done").
 * - `long_tasks`, `longest_task_ms`, `long_task_total_ms`: main-thread tasks over 50 ms in that time
 *   (PerformanceObserver "longtask"). Target: none over 200 ms.
 * - `same_as_one_shot`: the page's text and element sequence equal a render of the whole reply at once.
 */
import {
  compareWithOneShot,
  lastReplyRendered,
  longTasks,
  openChatSettled,
  watchLongTasks,
} from "../test/fixtures/chat-render.js";
import { browserSkip, launchChromium } from "../test/fixtures/chromium.js";
import { startWebDaemon } from "../test/fixtures/webui.js";
import { mixedReply } from "../web/src/md-corpus.test-data.js";

const SIZES = (process.env.BENCH_CHAT_SIZES ?? "100000,1000000").split(",").map(Number);
const PIECE_CHARS = 2000;
const TARGET_LONGEST_MS = 200;
const RENDER_TIMEOUT_MS = 120_000;
const PAGE_TIMEOUT_MS = 15_000;

// Not test/fixtures/browser.ts: it registers node:test hooks, which would turn this run into a test run.
if (browserSkip) throw new Error(`cannot run the chat rendering benchmark: ${browserSkip}`);

const web = await startWebDaemon();
const browser = await launchChromium();
try {
  const { cookie } = await web.login();
  for (const size of SIZES) {
    // A fresh page per size: the DOM of the previous reply does not weigh on the next.
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(PAGE_TIMEOUT_MS);
    const eq = cookie.indexOf("=");
    await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: web.base }]);
    const page = await context.newPage();
    await page.goto(`${web.base}/`);
    await openChatSettled(page);
    const text = `${mixedReply(size)}\n\nEND-MARKER 结束\n`;
    web.llm.enqueue({ text, pieceChars: PIECE_CHARS });
    const message = `bench ${size}`;
    await page.getByLabel("Message", { exact: true }).fill(message);
    await watchLongTasks(page);
    const started = performance.now();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const reply = await lastReplyRendered(page, message, RENDER_TIMEOUT_MS);
    const msToRendered = Math.round(performance.now() - started);
    const tasks = await longTasks(page);
    const compared = await compareWithOneShot(page, reply, text);
    console.log(
      JSON.stringify({
        bench: "chat_render",
        reply_chars: text.length,
        piece_chars: PIECE_CHARS,
        ms_to_rendered: msToRendered,
        long_tasks: tasks.count,
        longest_task_ms: tasks.longestMs,
        long_task_total_ms: tasks.totalMs,
        target_longest_ms: TARGET_LONGEST_MS,
        same_as_one_shot: compared.same,
        ...(compared.firstDifference ? { first_difference: compared.firstDifference } : {}),
      }),
    );
    await context.close();
  }
} finally {
  await browser.close();
  await web.stop();
}
