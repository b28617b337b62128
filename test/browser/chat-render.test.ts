/**
 * The Chat tab's replies in a real Chromium against a real daemon whose only LLM is the scripted fake:
 * raw HTML in a reply is shown as text (a `<style>` no longer swallows the rest), a hostile reply runs
 * nothing, asks no other origin for anything and leaves the console free of CSP reports, a long reply
 * streams without long main-thread tasks and ends exactly as a render of the whole, a file goes up with
 * the "Attach a file" input, and a cut event stream leaves no hole and no repeat in the conversation.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { mixedReply } from "../../web/src/md-corpus.test-data.js";
import { dashboardSkip, errorsOf, newPage, openDashboard, screenshot, sendChat } from "../fixtures/browser.js";
import {
  compareWithOneShot,
  lastReplyRendered,
  longTasks,
  oneShotInsertMs,
  openChatSettled,
  watchLongTasks,
} from "../fixtures/chat-render.js";
import { tempDir } from "../fixtures/temp-dir.js";
import { waitFor } from "../fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

const MAX_UPLOAD_BYTES = 4096;
/** The pause the server asks a browser to make before reconnecting (3 s by default), short for the cuts here. */
const RETRY_MS = 300;
/**
 * Long tasks under this always pass; above it, a task must still be shorter than putting the whole reply on
 * the page once (measured in the same page, so a loaded machine raises both). The bench
 * (bench/chat-render.ts) measures the real figure.
 */
const LONG_TASK_BOUND_MS = 500;

/** Every console message and CSP violation event of a page, and every request it makes. */
function watchPage(page: Page): { console: string[]; requests: string[] } {
  const seen = { console: [] as string[], requests: [] as string[] };
  page.on("console", (msg) => seen.console.push(msg.text()));
  page.on("request", (req) => seen.requests.push(req.url()));
  return seen;
}

const cspReports = (messages: string[]): string[] => messages.filter((m) => /Content Security Policy/i.test(m));

describe("chat replies in a real browser", { skip: dashboardSkip }, () => {
  let web: WebDaemon;
  let cookie: string;
  let dataDir: string;
  before(async () => {
    dataDir = tempDir("ha-chat-render-");
    web = await startWebDaemon({ dataDir, limits: { maxUploadBytes: MAX_UPLOAD_BYTES, sseRetryMs: RETRY_MS } });
    cookie = (await web.login()).cookie;
  });
  after(() => web?.stop());

  test("a literal <style> in a reply shows as text, and so does everything after it", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    const reply = "Use `<style>` like this: <style> then more text AFTER-STYLE 中文结尾";
    web.llm.enqueue({ text: reply });
    await sendChat(page, "how do I use style tags");
    const shown = await lastReplyRendered(page, "how do I use style tags", 15_000);
    assert.equal(
      (await shown.textContent())?.trim(),
      "Use <style> like this: <style> then more text AFTER-STYLE 中文结尾",
    );
    await shown.getByText("AFTER-STYLE 中文结尾").waitFor();
    await screenshot(page, "chat-style-as-text");
  });

  test("a hostile reply runs nothing, loads nothing from elsewhere, reports no CSP violation and loses no text", async (t) => {
    const page = await newPage(t);
    const seen = watchPage(page);
    await openDashboard(page, web.base, cookie);
    await page.evaluate(`(() => {
      window.__csp = [];
      document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective));
    })()`);
    const payloads = [
      `<img src=x onerror="window.__x1=1">`,
      `[js](javascript:window.__x2=1) [data](data:text/html,<script>alert(1)</script>) [t](https://evil.example/a "title\\" onmouseover=\\"x")`,
      `<svg><script>window.__x3=1</script><a xlink:href="javascript:1"><text>svg</text></a></svg>`,
      `<iframe src="https://evil.example/frame"></iframe><form action="https://evil.example/f"><button>go</button></form>`,
      `<p style="background:url(https://evil.example/css)">css</p><div style="position:fixed;inset:0">overlay</div>`,
      `![img](https://evil.example/track.png) <img src="https://evil.example/img2">`,
      `<a href="https://evil.example/x" target="_self">self</a> <math><mtext><table><mglyph><style><img src=x onerror=window.__x4=1>`,
      `<details open ontoggle="window.__x5=1">d</details> <video><source onerror="window.__x6=1"></video>`,
      `<a href="/api/v1/logout">same-origin link</a> <img src="/api/v1/logout"> <input autofocus onfocus=window.__x7=1>`,
    ];
    const reply = payloads.map((p, i) => `${p}\n\nAFTER-${i + 1} 中文${i + 1}`).join("\n\n");
    // Streamed in small pieces: every frame of the tail goes through the sanitizer again.
    web.llm.enqueue({ text: reply, pieceChars: 7 });
    await sendChat(page, "show me the payloads");
    const shown = await lastReplyRendered(page, "show me the payloads", 15_000);
    // Let anything that would load or fire have its chance: every image of the reply has loaded or failed
    // (its error event, where a planted handler would run, comes with that), then two frames more.
    await waitFor(
      () =>
        shown.evaluate((el) =>
          Array.from(el.querySelectorAll("img")).every((img) => (img as unknown as { complete: boolean }).complete),
        ),
      "the reply's images to load or fail",
      { timeoutMs: 10_000 },
    );
    await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))");

    assert.deepEqual(await page.evaluate<string[]>(`Object.keys(window).filter((k) => /^__x\\d$/.test(k))`), []);
    assert.deepEqual(await page.evaluate<string[]>("window.__csp"), [], "securitypolicyviolation events");
    assert.deepEqual(cspReports(seen.console), [], "CSP reports in the console");
    const base = new URL(web.base).origin;
    assert.deepEqual(
      seen.requests.filter((url) => !url.startsWith(`${base}/`)),
      [],
      "the page asked another origin for something",
    );
    assert.deepEqual(
      seen.requests.filter((url) => /\/x$|\/api\/v1\/logout/.test(url)),
      [],
      "raw <img> tags made requests",
    );
    const text = (await shown.textContent()) ?? "";
    for (let i = 1; i <= payloads.length; i++) assert.ok(text.includes(`AFTER-${i} 中文${i}`), `AFTER-${i} is missing`);
    for (const raw of ["<img src=x onerror=", "<svg><script>", "<iframe src=", "<details open ontoggle=", "<style>"]) {
      assert.ok(text.includes(raw), `the raw HTML ${raw} is not shown as text`);
    }
    // Page-side code sees DOM types the Node typecheck does not have: read attributes through a small shape.
    type Attributes = { getAttribute(name: string): string | null };
    const links = await shown.evaluate((el) =>
      Array.from(el.querySelectorAll("a"), (a) => ({
        href: (a as Attributes).getAttribute("href") ?? "",
        target: (a as Attributes).getAttribute("target"),
        rel: (a as Attributes).getAttribute("rel"),
      })),
    );
    assert.ok(links.length >= 2, "the refused images did not become links");
    for (const link of links) {
      assert.equal(link.target, "_blank");
      assert.equal(link.rel, "noopener noreferrer");
      assert.doesNotMatch(link.href, /^\s*(javascript|data):/i);
    }
    assert.equal(await shown.locator("img, iframe, form, input, svg, math, details, video, style").count(), 0);
    await screenshot(page, "chat-hostile-reply");
  });

  test("a file goes up with the Attach a file input: stored 0600 under workspace/uploads and shown in the chat and its history", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await page.getByRole("tab", { name: "Chat", exact: true }).click();
    const note = "买牛奶\nbuy milk\n";
    web.llm.enqueue({ text: "The note says: buy milk. 笔记收到。", pieceChars: 5 });
    await page.getByLabel("Attach a file", { exact: true }).setInputFiles({
      name: "笔记.txt",
      mimeType: "text/plain",
      buffer: Buffer.from(note),
    });
    const upload = page.waitForRequest((req) => req.method() === "POST" && req.url().endsWith("/api/v1/chat/file"));
    const turn = await sendChat(page, "summarize my note");
    await upload;
    await turn.getByText("The note says: buy milk. 笔记收到。").waitFor();
    const link = turn.getByRole("link", { name: "笔记.txt" });
    assert.equal(await link.getAttribute("href"), `/uploads/${encodeURIComponent("笔记.txt")}`);
    const uploads = join(dataDir, "workspace", "uploads");
    const stored = join(uploads, "笔记.txt");
    assert.equal(readFileSync(stored, "utf8"), note);
    assert.equal(statSync(stored).mode & 0o777, 0o600);
    const prompt = JSON.stringify(web.llm.requests.at(-1)?.body);
    assert.ok(prompt.includes("[attached file: uploads/笔记.txt"), "the agent was not told of the file");
    await screenshot(page, "chat-upload");

    // The history shows it the same way after a reload: the message, and the file as a link.
    await openDashboard(page, web.base, cookie);
    await page.getByRole("tab", { name: "Chat", exact: true }).click();
    const again = page
      .getByRole("log", { name: "Conversation" })
      .getByRole("article")
      .filter({ hasText: "summarize my note" });
    const kept = again.getByRole("link", { name: "笔记.txt" });
    assert.equal(await kept.getAttribute("href"), `/uploads/${encodeURIComponent("笔记.txt")}`);
    assert.doesNotMatch(String(await again.textContent()), /attached file:/);

    // Over the limit: the server's own message, in the turn.
    const before = readdirSync(uploads).length;
    await page.getByLabel("Attach a file", { exact: true }).setInputFiles({
      name: "big.txt",
      mimeType: "text/plain",
      buffer: Buffer.alloc(MAX_UPLOAD_BYTES * 3, "x"),
    });
    const refused = await sendChat(page, "and this big one");
    await refused.getByText(`over the limit of ${MAX_UPLOAD_BYTES} bytes`).waitFor();
    assert.equal(readdirSync(uploads).length, before, "a refused upload left a file behind");
  });

  test("after the event stream is cut the chat shows no hole and no repeat", async (t) => {
    // A loopback proxy in front of the daemon, so the test can cut the page's event stream alone.
    web.daemon.config.set("plugin.webui.allowed_hosts", "127.0.0.1");
    const proxy = await startProxy(Number(new URL(web.base).port));
    t.after(() => proxy.close());
    const page = await newPage(t);
    await openDashboard(page, proxy.base, cookie);
    await page.getByRole("tab", { name: "Chat", exact: true }).click();
    await waitFor(() => proxy.eventStreams() >= 1, "the page to open its event stream", { timeoutMs: 15_000 });

    // A reply streaming while the stream is cut: what shows is always a prefix, in the end the whole once.
    // Still streaming well after the page reconnects (RETRY_MS between tries).
    const words = Array.from({ length: 300 }, (_, i) => `w${String(i).padStart(3, "0")}`);
    const reply = words.join(" ");
    web.llm.enqueue({ text: reply, pieceChars: 5, frameIntervalMs: 15 });
    const turn = await sendChat(page, "count slowly");
    const samples: string[] = [];
    const sample = async () => samples.push(((await turn.locator(".markdown").textContent()) ?? "").trim());
    await waitFor(
      async () => {
        await sample();
        return samples.at(-1)?.includes("w020");
      },
      "the reply to start",
      { timeoutMs: 15_000, intervalMs: 20 },
    );
    proxy.cutEventStreams();
    let toldOfGap = false;
    await waitFor(
      async () => {
        await sample();
        toldOfGap ||= (await turn.getByText("The connection was interrupted").count()) > 0;
        return (await turn.getAttribute("aria-busy")) === "false";
      },
      "the reply to end",
      { timeoutMs: 30_000, intervalMs: 20 },
    );
    // The final text is put on the page in animation frames after the turn ends: sample once it is all there.
    await turn.locator('.markdown[data-rendered="done"]').waitFor({ timeout: 15_000 });
    await sample();
    assert.ok(proxy.eventStreams() >= 2, "the page did not reconnect while the reply streamed");
    for (const shown of samples) assert.ok(reply.startsWith(shown), `the page showed a hole: ${shown.slice(-80)}`);
    assert.equal(samples.at(-1), reply);
    assert.ok(toldOfGap, "the turn never said that the rest of the reply comes at its end");
    assert.equal(await turn.getByText("The connection was interrupted").count(), 0, "the note stayed after the end");

    // A message the agent sends while the page is cut off arrives once, after the reconnect, and stays once.
    proxy.cutEventStreams();
    web.llm.enqueue(
      { toolCalls: [{ id: "call_send", name: "output_send__webui", arguments: { payload: "PROACTIVE 提醒 one" } }] },
      { text: "sent" },
    );
    const sent = await web.json("POST", "/api/v1/chat", { message: "remind the browser" });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByText("PROACTIVE 提醒 one").waitFor({ timeout: 15_000 });
    await waitFor(() => proxy.eventStreams() >= 3, "the page to reconnect", { timeoutMs: 15_000 });
    proxy.cutEventStreams();
    await waitFor(() => proxy.eventStreams() >= 4, "the page to reconnect again", { timeoutMs: 15_000 });
    web.llm.enqueue({ text: "after the cuts" });
    const last = await sendChat(page, "still there?");
    await last.getByText("after the cuts").waitFor();
    assert.equal(await log.getByText("PROACTIVE 提醒 one").count(), 1, "the message the agent sent shows twice");
    assert.equal(await log.getByRole("article").filter({ hasText: "count slowly" }).count(), 1);
    await screenshot(page, "chat-after-reconnects");
  });

  test("a long reply streams without long main-thread tasks and ends as a render of the whole", async (t) => {
    const page = await newPage(t);
    await openDashboard(page, web.base, cookie);
    await openChatSettled(page);
    const reply = `${mixedReply(400_000)}\n\nEND-MARKER 结束\n`;
    web.llm.enqueue({ text: reply, pieceChars: 2000 });
    await watchLongTasks(page);
    const started = performance.now();
    await sendChat(page, "write a long report");
    const shown = await lastReplyRendered(page, "write a long report", 120_000);
    const took = Math.round(performance.now() - started);
    const tasks = await longTasks(page);
    const wholeMs = await oneShotInsertMs(page, shown, reply);
    t.diagnostic(
      `${reply.length} chars rendered in ${took} ms; long tasks: ${JSON.stringify(tasks)}; the whole at once: ${wholeMs} ms`,
    );
    assert.ok(
      tasks.longestMs < Math.max(LONG_TASK_BOUND_MS, wholeMs),
      `a main-thread task took ${tasks.longestMs} ms, the whole reply at once ${wholeMs} ms (${JSON.stringify(tasks)})`,
    );
    const compared = await compareWithOneShot(page, shown, reply);
    assert.ok(compared.same, `the page differs from a render of the whole: ${JSON.stringify(compared)}`);
    assert.deepEqual(errorsOf(page), []);
  });
});

interface Proxy {
  base: string;
  /** Event-stream connections opened through the proxy so far. */
  eventStreams(): number;
  /** Cuts the open event-stream connections (the page's EventSource sees a network error). */
  cutEventStreams(): void;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1:<free port> to the daemon, which knows which connections carry the event stream. */
async function startProxy(targetPort: number): Promise<Proxy> {
  const streams = new Set<Socket>();
  const sockets = new Set<Socket>();
  let opened = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    // Chrome reuses a kept-alive connection for the next request: what a connection carries is what its
    // latest request asked for, so a chat POST on a connection that once held a refused stream is never cut.
    client.on("data", (chunk: Buffer) => {
      const request = /^(GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS) (\S+)/.exec(chunk.toString("latin1"));
      if (!request) return;
      if (request[1] === "GET" && request[2].startsWith("/api/v1/chat/events")) {
        if (!streams.has(client)) opened += 1;
        streams.add(client);
      } else {
        streams.delete(client);
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const done = () => {
      client.destroy();
      upstream.destroy();
      streams.delete(client);
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", done).on("error", done);
    upstream.on("close", done).on("error", done);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    eventStreams: () => opened,
    cutEventStreams: () => {
      for (const socket of streams) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
