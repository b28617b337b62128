/**
 * Soak: 3,000 turns through the real cli socket of a real `homed` subprocess (the built daemon in dist/,
 * as `npm start` runs it; `npm run bench:soak` builds first) against the fake LLM over real HTTP (which
 * answers at once), 1 turn in 10 with a tool call; even turns go over one long-lived connection, odd turns
 * each over a new connection. Watches the daemon's RSS and open file descriptors, so leaks per turn or per
 * connection show up. Prints one JSON line.
 *
 * Also the cli round trip: p50 of a one-line message on the long-lived connection is the figure the
 * README quotes (what a client waits for a reply when the provider itself costs nothing).
 *
 * BENCH_TURNS overrides the number of turns; HOMED_NODE_ARGS adds node flags for the daemon (e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof" to see where its time goes).
 */

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { startFakeLLM } from "../test/fixtures/fake-llm.js";
import { Client, statusMb } from "./cli-turns.js";
import { startBenchHomed, stopBenchHomed } from "./homed.js";
import { percentile } from "./stats.js";

const TURNS = Number(process.env.BENCH_TURNS ?? 3000);
const WARMUP = 200;

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/**
 * The lowest reading in each of `windows` equal runs of turns: RSS right after a garbage collection, the
 * floor the heap's sawtooth returns to, so what is really kept shows without the ±10 MB of the swings.
 */
function floors(points: Array<[number, number]>, windows: number): Array<[number, number]> {
  const size = Math.ceil(points.length / windows);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < points.length; i += size) {
    const run = points.slice(i, i + size);
    const low = run.reduce((a, b) => (b[1] < a[1] ? b : a));
    out.push([run[Math.floor(run.length / 2)][0], low[1]]);
  }
  return out;
}

function p(sorted: number[], q: number): number {
  return Math.round(percentile(sorted, q) * 100) / 100;
}

const fake = await startFakeLLM();
const dir = mkdtempSync(join(tmpdir(), "ha-soak-"));
const homed = await startBenchHomed(dir, fake.url, { dist: true });
const pid = homed.pid as number;
const socketPath = cliSocketPath(dir);

const longLived = await Client.connect(socketPath);
const latencies = { long: [] as number[], fresh: [] as number[] };
let rssStart = 0;
let fdsStart = 0;
let rssAfterFirstThird = 0;
// RSS swings by ±10 MB with each garbage collection, so growth is a slope fitted over many readings (every
// 10 turns of the last two thirds), not the difference of two that may each catch a different point of a
// GC cycle; and fitted to the floors of those readings (floors()), which the swings do not move.
const lateSamples: Array<[number, number]> = [];
for (let i = 0; i < WARMUP + TURNS; i++) {
  const n = i - WARMUP;
  if (n === 0) {
    rssStart = statusMb(pid);
    fdsStart = fds(pid);
  }
  if (n === Math.floor(TURNS / 3)) rssAfterFirstThird = statusMb(pid);
  if (n >= Math.floor(TURNS / 3) && n % 10 === 0) lateSamples.push([n, statusMb(pid)]);
  if (i % 10 === 0) {
    fake.enqueue({ toolCalls: [{ name: "output_list_channels", arguments: {} }] }, { text: "listed" });
  }
  const fresh = i % 2 === 1;
  const t0 = performance.now();
  const client = fresh ? await Client.connect(socketPath) : longLived;
  const frame = await client.ask(`message ${i}: how is the weather today? 今天天气怎么样？`);
  if (fresh) await client.close();
  const ms = performance.now() - t0;
  if (frame.type !== "response") throw new Error(`turn ${i}: ${JSON.stringify(frame)}`);
  if (n >= 0) (fresh ? latencies.fresh : latencies.long).push(ms);
  // The fake records every request; the bench process's memory is not what is measured, but keep it flat.
  if (fake.requests.length > 100) fake.requests.length = 0;
}
const rssEnd = statusMb(pid);
const fdsEnd = fds(pid);
await longLived.close();

const lateFloors = floors(lateSamples, 8);
const all = [...latencies.long, ...latencies.fresh].sort((a, b) => a - b);
const long = [...latencies.long].sort((a, b) => a - b);
const fresh = [...latencies.fresh].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: "soak",
    turns: all.length,
    p50_ms: p(all, 0.5),
    p99_ms: p(all, 0.99),
    long_lived_p50_ms: p(long, 0.5),
    new_connection_p50_ms: p(fresh, 0.5),
    rss_mb_start: rssStart,
    rss_mb_after_first_third: rssAfterFirstThird,
    rss_mb_end: rssEnd,
    rss_growth_last_two_thirds_fitted_mb: Math.round(slope(lateFloors) * (TURNS - Math.floor(TURNS / 3)) * 10) / 10,
    // Every turn is remembered (archived, indexed, its vector kept): what memory costs per turn, fitted to
    // the floors of eight windows; `_all_readings` fits every reading (the estimate used before, noisier).
    rss_growth_per_turn_kb: Math.round(slope(lateFloors) * 1024 * 10) / 10,
    rss_growth_per_turn_kb_all_readings: Math.round(slope(lateSamples) * 1024 * 10) / 10,
    fds_start: fdsStart,
    fds_end: fdsEnd,
  }),
);

await stopBenchHomed(homed);
await fake.close();
rmSync(dir, { recursive: true, force: true });
