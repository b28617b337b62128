/**
 * What running a plugin in its own process costs, and how fast a killed one is back. In one run, so the
 * ratios hold on a noisy machine: a `tool.invoke` round trip to the echo-ts fixture (plugin.js under the
 * stdio runtime, through the real registry, bridge and agent tool registry), a raw line ping-pong between
 * two Node processes over stdio (the floor any pipe protocol pays), and the same tool in-process; the
 * line of each payload carries the ratios to the raw ping-pong. Then the recovery time: SIGKILL the plugin
 * → its tool answers again, median of 10.
 *
 * A ping-pong's time is mostly the other side waking up: ~10 µs when both processes share a CPU, ~60 µs
 * across CPUs on this machine. Left to the scheduler, the plugin pair and the raw pair can land differently
 * and their ratio swings from 0.3× to 8× between runs, so both pairs get the same placement (BENCH_CPUS):
 * "split" (default where taskset and two CPUs exist) puts the daemon on CPU 0 and both children on CPU 1,
 * "same" puts all three on CPU 0, "none" leaves it to the scheduler.
 *
 * Run after a build (`npm run bench:plugin-rpc` builds first): the plugin child runs the compiled runner
 * like a user's daemon does, not the sources through tsx.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { availableParallelism, cpus as cpuList } from "node:os";
import { PluginRegistry } from "../src/plugins/registry.js";
import { systemClock } from "../src/util/clock.js";
import { quietLog } from "../test/fixtures/kernel-harness.js";
import { testPluginHost } from "../test/fixtures/plugin-host.js";
import { installFixturePlugin } from "../test/fixtures/plugins.js";
import { percentile } from "./stats.js";

/** Both processes take a few thousand calls to reach their optimised code; a daemon runs warm for months. */
const WARMUP = 5000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20_000);
const RECOVERIES = 10;
const PAYLOADS = [16, 32 * 1024];

const test = testPluginHost();
const pluginDir = `${test.host.dataDir}/plugins`;
installFixturePlugin(test.host.dataDir, "echo-ts");
// The bench kills the plugin ten times: a clock that moves on 10 minutes per read keeps every crash outside
// the crash window, so each one is restarted at once as a first crash is (the policy has its own tests).
let fakeNow = Date.now();
const registry = new PluginRegistry(test.host, test.config, quietLog, {
  pluginDir,
  clock: {
    now: () => (fakeNow += 600_000),
    setTimer: systemClock.setTimer,
    clearTimer: systemClock.clearTimer,
  },
});
await registry.startAll([]);
const tools = test.harness.agent.tools;
const echo = registry.list().find((p) => p.name === "echo-ts");
if (echo?.state !== "running" || !echo.pid) throw new Error(`echo-ts did not start: ${JSON.stringify(echo)}`);

tools.register("bench", { name: "echo_inproc", description: "echo", parameters: {} }, (args) => String(args.text));
const toolCtx = { requestId: "bench", source: "bench", channel: "bench", signal: new AbortController().signal };

async function timeTool(name: string, text: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const started = process.hrtime.bigint();
    const out = await tools.execute({ id: `c${i}`, name, arguments: { text } }, toolCtx);
    const us = Number(process.hrtime.bigint() - started) / 1000;
    if (out.status !== "ok" || out.content.length !== text.length) throw new Error(`${name}: ${out.content}`);
    if (i >= WARMUP) samples.push(us);
  }
  return samples.sort((a, b) => a - b);
}

/** A child that writes back every line it reads: newline framing, no JSON, no dispatch. */
const ECHO_CHILD = `
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf("\\n")) !== -1) {
    process.stdout.write(buf.slice(0, nl + 1));
    buf = buf.slice(nl + 1);
  }
});`;

async function timeRaw(child: ChildProcessWithoutNullStreams, text: string): Promise<number[]> {
  const line = `${text}\n`;
  let waiting: (() => void) | undefined;
  let got = 0;
  child.stdout.removeAllListeners("data");
  child.stdout.on("data", (d: Buffer) => {
    got += d.length;
    if (got >= line.length) {
      got -= line.length;
      waiting?.();
    }
  });
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const started = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      waiting = resolve;
      child.stdin.write(line);
    });
    if (i >= WARMUP) samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return samples.sort((a, b) => a - b);
}

type Placement = "split" | "same" | "none";

function placement(): Placement {
  const asked = process.env.BENCH_CPUS ?? "split";
  if (asked !== "split" && asked !== "same" && asked !== "none")
    throw new Error(`BENCH_CPUS=${asked}: split, same or none`);
  if (asked === "none") return asked;
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
  } catch {
    return "none";
  }
  return asked === "split" && availableParallelism() < 2 ? "same" : asked;
}

function cpuCount(): number {
  return cpuList().length;
}

/** Every thread of `pid` onto `cpu`; -1 = back onto every CPU. */
function pin(pid: number, cpu: number): void {
  const list = cpu < 0 ? `0-${cpuCount() - 1}` : String(cpu);
  execFileSync("taskset", ["-a", "-p", "-c", list, String(pid)], { stdio: "ignore" });
}

const round = (n: number) => Math.round(n * 10) / 10;
const ratio = (ours: number, floor: number) => Math.round((ours / floor) * 100) / 100;
const raw = spawn(process.execPath, ["-e", ECHO_CHILD], { stdio: ["pipe", "pipe", "pipe"] });
const cpus = placement();
if (cpus !== "none") {
  const childCpu = cpus === "split" ? 1 : 0;
  pin(echo.pid, childCpu);
  pin(raw.pid ?? -1, childCpu);
  pin(process.pid, 0);
}
// Up and idle before anything is timed: a Node process starting beside a measurement skews it.
await timeRaw(raw, "ready");
for (const bytes of PAYLOADS) {
  const text = "x".repeat(bytes);
  const ours = await timeTool("echo", text);
  const rawPingPong = await timeRaw(raw, text);
  const inproc = await timeTool("echo_inproc", text);
  const [p50, p99] = [percentile(ours, 0.5), percentile(ours, 0.99)];
  const [rawP50, rawP99] = [percentile(rawPingPong, 0.5), percentile(rawPingPong, 0.99)];
  console.log(
    JSON.stringify({
      bench: "plugin-rpc",
      payload_bytes: bytes,
      p50_us: round(p50),
      p99_us: round(p99),
      raw_p50_us: round(rawP50),
      raw_p99_us: round(rawP99),
      p50_ratio: ratio(p50, rawP50),
      p99_ratio: ratio(p99, rawP99),
      inproc_p50_us: round(percentile(inproc, 0.5)),
      cpus,
      rounds: ROUNDS,
    }),
  );
}
raw.kill();
// Restarted plugins inherit the daemon's CPUs: recovery is timed with the whole machine, as a daemon has it.
if (cpus !== "none") pin(process.pid, -1);

/** SIGKILL → the tool answers again; polls on every turn of the event loop. */
async function recoverOnce(): Promise<number> {
  const pid = registry.list().find((p) => p.name === "echo-ts")?.pid;
  if (!pid) throw new Error("echo-ts has no pid");
  const started = performance.now();
  process.kill(pid, "SIGKILL");
  const give = started + 10_000;
  for (;;) {
    const info = registry.list().find((p) => p.name === "echo-ts");
    if (info?.pid !== pid && info?.state === "running") {
      const out = await tools.execute({ id: "r", name: "echo", arguments: { text: "back" } }, toolCtx);
      if (out.status === "ok") return performance.now() - started;
    }
    if (performance.now() > give) throw new Error(`echo-ts not back after 10 s: ${JSON.stringify(info)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const recoveries: number[] = [];
for (let i = 0; i < RECOVERIES; i++) recoveries.push(await recoverOnce());
recoveries.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: "plugin-recovery",
    ms: Math.round(percentile(recoveries, 0.5)),
    min_ms: Math.round(recoveries[0] ?? 0),
    max_ms: Math.round(recoveries.at(-1) ?? 0),
    runs: RECOVERIES,
  }),
);
await registry.stopAll();
await test.close();
