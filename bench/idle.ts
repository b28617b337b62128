/**
 * Idle: what the daemon costs at rest, and what the first reply after start costs (issue 20, "memory at
 * rest"). Every start is the built `homed` (dist/, as `npm start` runs it; `npm run bench:idle` builds
 * first) on a fresh data dir, read from /proc 10 s after it was spawned:
 *
 * - no LLM source (what a new user has before configuring one): VmRSS, VmHWM, threads — the acceptance
 *   figure `rss_mb` (≤ 100 MB);
 * - the env LLM source pointed at the fake LLM (test/fixtures, real HTTP), for two users: "en" (locale
 *   en_US.UTF-8, English lines) and "zh" (locale zh_CN.UTF-8, bench:soak's line mixing English and
 *   Chinese, for which the daemon preloads the Chinese dictionary after "ready"). After the reading, the
 *   first turn, then 20 turns not counted and WARM counted ones; each turn is a new cli connection, a line,
 *   its final frame (bench:soak's fresh-connection turns). `ratio` is the first turn over the warm p50,
 *   the worse of the two users (medians over RUNS starts each; acceptance ≤ 3).
 * - `rested_ratio`: the first turn over a turn of the same daemon, warm, after the same rest (RESTED: it
 *   waits AT_REST_AFTER_MS after its warm turns). On this VM any turn after seconds of rest is 2–3× one
 *   that follows another at once (the idle vCPUs and caches, in the daemon, its Lua worker and the bench
 *   process alike), so `ratio` counts that as well as what is cold after start; this one only the latter.
 * - `en_first_cjk_line_ms`: after its warm turns, the "en" user writes Chinese for the first time — the
 *   dictionary loads inside that turn, once per process (the cost a user outside a CJK locale pays once).
 *
 * BENCH_RUNS (default 3) starts per user; BENCH_WARM (default 100) counted warm turns. Prints one JSON
 * line; progress goes to stderr.
 */

import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { type FakeLLM, startFakeLLM } from "../test/fixtures/fake-llm.js";
import { Client, statusMb } from "./cli-turns.js";
import { startBenchHomed, stopBenchHomed } from "./homed.js";
import { percentile } from "./stats.js";

const AT_REST_AFTER_MS = 10_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WARM = Number(process.env.BENCH_WARM ?? 100);
const NOT_COUNTED = 20;

const USERS = {
  en: { locale: "en_US.UTF-8", line: (i: number) => `message ${i}: how is the weather today?` },
  zh: { locale: "zh_CN.UTF-8", line: (i: number) => `message ${i}: how is the weather today? 今天天气怎么样？` },
};
type User = keyof typeof USERS;

interface AtRest {
  rss_mb: number;
  hwm_mb: number;
  threads: number;
}

/** A fresh daemon, left alone until AT_REST_AFTER_MS after its spawn and read; `use` then runs on it. */
async function fresh<T>(
  llm: FakeLLM | null,
  locale: string,
  use: (homed: ChildProcess, socketPath: string) => Promise<T>,
): Promise<AtRest & T> {
  const dir = mkdtempSync(join(tmpdir(), "ha-idle-"));
  const spawned = performance.now();
  // LC_ALL and LC_MESSAGES emptied: the locale is LANG's, whatever the shell running the bench has.
  const env = { LANG: locale, LC_ALL: "", LC_MESSAGES: "" };
  const homed = await startBenchHomed(dir, llm?.url ?? null, { dist: true, env });
  try {
    await sleep(AT_REST_AFTER_MS - (performance.now() - spawned));
    const pid = homed.pid as number;
    const rest = {
      rss_mb: statusMb(pid, "VmRSS"),
      hwm_mb: statusMb(pid, "VmHWM"),
      threads: readdirSync(`/proc/${pid}/task`).length,
    };
    return { ...rest, ...(await use(homed, cliSocketPath(dir))) };
  } finally {
    await stopBenchHomed(homed);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One turn over a new connection, as a client that has just started would send it. */
async function turn(socketPath: string, line: string): Promise<number> {
  const t0 = performance.now();
  const client = await Client.connect(socketPath);
  const frame = await client.ask(line);
  await client.close();
  const ms = performance.now() - t0;
  if (frame.type !== "response") throw new Error(`${line}: ${JSON.stringify(frame)}`);
  return ms;
}

async function turns(llm: FakeLLM, user: User) {
  const { line } = USERS[user];
  return fresh(llm, USERS[user].locale, async (homed, socketPath) => {
    const first = await turn(socketPath, line(0));
    const later: number[] = [];
    for (let i = 1; i <= NOT_COUNTED + WARM; i++) {
      later.push(await turn(socketPath, line(i)));
      // The fake records every request; keep the bench process flat.
      if (llm.requests.length > 100) llm.requests.length = 0;
    }
    await sleep(AT_REST_AFTER_MS);
    const rested = await turn(socketPath, line(NOT_COUNTED + WARM + 1));
    const firstCjk = user === "en" ? await turn(socketPath, "明天天气怎么样？") : 0;
    const warm = later.slice(NOT_COUNTED).sort((a, b) => a - b);
    return {
      first,
      second: later[0] ?? 0,
      warmP50: percentile(warm, 0.5),
      warmP99: percentile(warm, 0.99),
      rested,
      firstCjk,
      rssAfterTurns: statusMb(homed.pid as number),
    };
  });
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

const noSource = await fresh(null, USERS.en.locale, async () => ({}));
process.stderr.write(`no source: ${JSON.stringify(noSource)}\n`);
const fake = await startFakeLLM();
const results: Record<User, Awaited<ReturnType<typeof turns>>[]> = { en: [], zh: [] };
for (let run = 0; run < RUNS; run++) {
  for (const user of ["en", "zh"] as const) {
    const r = await turns(fake, user);
    process.stderr.write(`${user} run ${run + 1}: ${JSON.stringify(r)}\n`);
    results[user].push(r);
  }
}
await fake.close();

const summary = (user: User) => {
  const rs = results[user];
  const first = median(rs.map((r) => r.first));
  const warm = median(rs.map((r) => r.warmP50));
  const rested = median(rs.map((r) => r.rested));
  const fields = {
    [`${user}_rss_mb`]: median(rs.map((r) => r.rss_mb)),
    [`${user}_hwm_mb`]: median(rs.map((r) => r.hwm_mb)),
    [`${user}_threads`]: median(rs.map((r) => r.threads)),
    [`${user}_first_turn_ms`]: round(first),
    [`${user}_first_turns_ms`]: rs.map((r) => round(r.first)),
    [`${user}_second_turn_ms`]: round(median(rs.map((r) => r.second))),
    [`${user}_warm_p50_ms`]: round(warm),
    [`${user}_warm_p99_ms`]: round(median(rs.map((r) => r.warmP99))),
    [`${user}_ratio`]: round(first / warm),
    [`${user}_rested_turn_ms`]: round(rested),
    [`${user}_rested_ratio`]: round(first / rested),
    [`${user}_rss_mb_after_turns`]: median(rs.map((r) => r.rssAfterTurns)),
  };
  return { fields, ratio: first / warm, rested: first / rested };
};
const en = summary("en");
const zh = summary("zh");
console.log(
  JSON.stringify({
    bench: "idle",
    rss_mb: noSource.rss_mb,
    hwm_mb: noSource.hwm_mb,
    threads: noSource.threads,
    ratio: round(Math.max(en.ratio, zh.ratio)),
    rested_ratio: round(Math.max(en.rested, zh.rested)),
    ...en.fields,
    ...zh.fields,
    en_first_cjk_line_ms: round(median(results.en.map((r) => r.firstCjk))),
    runs: RUNS,
    warm_turns: WARM,
  }),
);
