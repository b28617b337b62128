/**
 * The dashboard's figures, with a real daemon on loopback (test/fixtures/webui.ts) and Debian's Chromium
 * (test/fixtures/browser.ts). Prints one JSON line per figure:
 *
 * - `dashboard_uptime_visible`: from `page.goto("/")` to the Overview's uptime (role timer, name "Uptime")
 *   being visible, already logged in by cookie. Cold: a fresh browser context each run (empty HTTP cache),
 *   median and max over BENCH_DASHBOARD_RUNS runs after one warm-up; warm: a reload in the same context
 *   (hashed assets come from the cache). Target: cold median < 1 s.
 * - `dashboard_assets_gzip`: the built files under dist/web, raw and gzip-compressed (zlib's default
 *   level, as a server would send them): the sum, what the first view loads (index.html and the assets it
 *   names; lazy chunks come later), and the largest file.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { browserSkip, launchChromium } from "../test/fixtures/chromium.js";
import { startWebDaemon } from "../test/fixtures/webui.js";

const RUNS = Number(process.env.BENCH_DASHBOARD_RUNS ?? 9);
const TARGET_MS = 1000;
const TIMEOUT_MS = 15_000;
const WEB_ROOT = fileURLToPath(new URL("../dist/web", import.meta.url));

function print(figure: Record<string, unknown>): void {
  console.log(JSON.stringify(figure));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const ms = (v: number): number => Math.round(v * 10) / 10;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

function assetsFigure(): void {
  const sizes = files(WEB_ROOT).map((path) => {
    const raw = readFileSync(path);
    return { file: relative(WEB_ROOT, path), bytes: raw.length, gzip: gzipSync(raw).length };
  });
  const largest = sizes.reduce((a, b) => (b.gzip > a.gzip ? b : a));
  // What the first view loads: index.html and the assets it names (lazy chunks, e.g. the graph, come later).
  const index = readFileSync(join(WEB_ROOT, "index.html"), "utf8");
  const named = new Set([...index.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]));
  const entry = sizes.filter((s) => s.file === "index.html" || named.has(s.file));
  print({
    bench: "dashboard_assets_gzip",
    files: sizes.length,
    entry_gzip_bytes: entry.reduce((n, s) => n + s.gzip, 0),
    total_bytes: sizes.reduce((n, s) => n + s.bytes, 0),
    total_gzip_bytes: sizes.reduce((n, s) => n + s.gzip, 0),
    largest_file: largest.file,
    largest_bytes: largest.bytes,
    largest_gzip_bytes: largest.gzip,
  });
}

async function uptimeFigure(): Promise<void> {
  const web = await startWebDaemon();
  const browser = await launchChromium();
  try {
    const { cookie } = await web.login();
    const eq = cookie.indexOf("=");
    const cold: number[] = [];
    const warm: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 800 } });
      context.setDefaultTimeout(TIMEOUT_MS);
      await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: web.base }]);
      const page = await context.newPage();
      const uptime = page.getByRole("timer", { name: "Uptime" });
      let t0 = performance.now();
      await page.goto(`${web.base}/`);
      await uptime.waitFor({ state: "visible" });
      const first = performance.now() - t0;
      t0 = performance.now();
      await page.reload();
      await uptime.waitFor({ state: "visible" });
      const again = performance.now() - t0;
      await context.close();
      if (run === 0) continue;
      cold.push(first);
      warm.push(again);
    }
    print({
      bench: "dashboard_uptime_visible",
      runs: RUNS,
      cold_median_ms: ms(median(cold)),
      cold_max_ms: ms(Math.max(...cold)),
      warm_median_ms: ms(median(warm)),
      target_ms: TARGET_MS,
      met: median(cold) < TARGET_MS,
    });
  } finally {
    await browser.close();
    await web.stop();
  }
}

if (browserSkip) throw new Error(`cannot run the dashboard benchmark: ${browserSkip}`);
if (!statSync(join(WEB_ROOT, "index.html"), { throwIfNoEntry: false })) {
  throw new Error(`${WEB_ROOT}/index.html is missing: run "npm run build" first`);
}
await uptimeFigure();
assetsFigure();
process.exit(0);
