/**
 * A real `homed` for benchmarks: the built daemon (dist/) or the sources through tsx, on its own data dir,
 * with the env LLM source pointed at a fake server on loopback, or with no LLM source at all (`llmUrl`
 * null: what a new user has before configuring one); `env` adds variables (a locale, say). HOMED_NODE_ARGS
 * adds node flags (e.g. `--cpu-prof`). Resolves once it logs "ready".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const START_TIMEOUT_MS = 60_000;
const SOURCES = ["--conditions=development", "--import", "tsx", "src/bin/homed.ts"];

export async function startBenchHomed(
  dir: string,
  llmUrl: string | null,
  opts: { dist: boolean; env?: Record<string, string> },
): Promise<ChildProcess> {
  const flags = process.env.HOMED_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const entry = opts.dist ? ["dist/bin/homed.js"] : SOURCES;
  const proc = spawn(process.execPath, [...flags, ...entry, "--data", dir], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOMEAGENT_API_KEY: "",
      HOMEAGENT_OLLAMA_URL: "",
      // Empty counts as unset (config/env.ts), so no variable of the caller's shell adds a source.
      HOMEAGENT_LLM_BASE_URL: llmUrl ?? "",
      HOMEAGENT_LLM_MODEL: llmUrl ? "fake-model" : "",
      HOMEAGENT_LLM_API_KEY: llmUrl ? "sk-bench-0000000000" : "",
      HOMEAGENT_WEBUI_ADDR: "127.0.0.1:0",
      // As `npm start` runs it (README, "Memory use").
      MALLOC_ARENA_MAX: "2",
      ...opts.env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`homed not ready after ${START_TIMEOUT_MS} ms:\n${log}`)),
      START_TIMEOUT_MS,
    );
    proc.stderr?.on("data", (d) => {
      if (log.length < 100_000) log += d;
      if (log.includes(" ready ")) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`homed exited with ${code}:\n${log}`));
    });
  });
  return proc;
}

/** SIGTERM, resolved once it has exited. */
export async function stopBenchHomed(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGTERM");
  await exited;
}
