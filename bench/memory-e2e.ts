/**
 * Memory end to end (issue 8, "Measures"): does the evidence of a LoCoMo question reach the LLM's prompt
 * when the whole conversation was told to a real `homed` first? Per conversation: a fresh daemon with its
 * own data dir and every default except the LLM source (env variables → a fake OpenAI-compatible server on
 * loopback that answers every request "ok." and records it), `/settings set
 * core.llm.sources.env.context_window 8192` first, then over one cli connection every turn of every
 * session (sessions by number) as `[<session date_time>] <speaker>: <text>` (+ ` [shares a photo: …]`),
 * then every question of categories 1–4 with evidence in the conversation. Each question is scored on
 * the first LLM request it caused (bench/memory-e2e-score.ts holds the exact rules). Prints one JSON line;
 * progress goes to stderr.
 *
 *   npm run bench:memory-e2e -- [--data FILE] [--conversations N] [--dist] [--mcp SERVERS:TOOLS]
 *
 * --mcp 5:25 connects the daemon to 5 MCP servers (test/fixtures/mcp-server.ts over stdio) of 25 tools each
 * (plus each one's own few) before the replay, to see that many tools leave memory's share of the prompt.
 * FILE defaults to ../shared/datasets/locomo/locomo-dev.json. The daemon runs from the sources through
 * tsx; --dist runs the built dist/bin/homed.js instead (build first). A line break inside a turn's text
 * becomes a space: the cli protocol is one message per line.
 */

import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { RawCliClient } from "../test/fixtures/cli-client.js";
import { openaiWire } from "../test/fixtures/fake-openai.js";
import { parseJson, readBody } from "../test/fixtures/fake-wire.js";
import { startBenchHomed, stopBenchHomed } from "./homed.js";
import { loadLocomo, type Question } from "./locomo-data.js";
import {
  newestUserText,
  promptTokens,
  type RequestBody,
  type ScoredQuestion,
  scoreQuestion,
  summarise,
} from "./memory-e2e-score.js";
import { percentile } from "./stats.js";

const CATEGORIES = new Set([1, 2, 3, 4]);
const DEV_SPLIT = fileURLToPath(new URL("../../shared/datasets/locomo/locomo-dev.json", import.meta.url));
const MESSAGE_TIMEOUT_MS = 120_000;
const CONTEXT_WINDOW = 8192;
const FIXTURE_SERVER = fileURLToPath(new URL("../test/fixtures/mcp-server.ts", import.meta.url));
const MCP_READY_TIMEOUT_MS = 60_000;

/** What the fake LLM keeps of each chat request: its order of arrival and body. */
interface Recorded {
  seq: number;
  body: RequestBody;
}

/** An OpenAI-compatible server on 127.0.0.1 that answers every chat request "ok." and records it. */
async function startOkServer(): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  let seq = 0;
  const server: Server = createServer(async (req, res) => {
    const body = parseJson(await readBody(req)) as RequestBody & { stream?: boolean };
    if (req.method !== "POST" || !req.url?.startsWith("/v1/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    seq += 1;
    requests.push({ seq, body });
    const ex = {
      res,
      step: { text: "ok." },
      body,
      model: "fake-model",
      seq,
      hangUp: () => res.socket?.destroy(),
      sleep: () => Promise.resolve(),
    };
    if (body?.stream === true) await openaiWire.stream(ex);
    else openaiWire.reply(ex);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends one line and waits for its final frame; an error frame is an error. */
async function ask(client: RawCliClient, line: string): Promise<void> {
  const before = client.finals().length;
  client.send(`${line}\n`);
  const finals = await client.waitForFinals(before + 1, MESSAGE_TIMEOUT_MS);
  const frame = finals[before];
  if (!frame) throw new Error(`no answer to ${JSON.stringify(line.slice(0, 80))}: the connection closed`);
  if (frame.type === "error")
    throw new Error(`homed answered an error to ${JSON.stringify(line.slice(0, 80))}: ${frame.error}`);
  // Frames are only needed until answered; a long replay must not keep them all.
  client.frames.length = 0;
}

interface ReplayTurn {
  line: string;
}

/** The conversation's turns in replay order: sessions by number, turns as the file lists them. */
function replayTurns(sample: Record<string, unknown>): ReplayTurn[] {
  const conv = (sample.conversation ?? {}) as Record<string, unknown>;
  const sessions = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(conv[m[0]]))
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  const out: ReplayTurn[] = [];
  for (const m of sessions) {
    const date = String(conv[`session_${m[1]}_date_time`] ?? "");
    for (const t of conv[m[0]] as Array<Record<string, unknown>>) {
      if (typeof t?.dia_id !== "string" || typeof t?.text !== "string") continue;
      const caption = typeof t.blip_caption === "string" ? ` [shares a photo: ${t.blip_caption}]` : "";
      out.push({ line: oneLine(`[${date}] ${String(t.speaker ?? "")}: ${t.text}${caption}`) });
    }
  }
  return out;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ");
}

interface ConversationResult {
  scored: ScoredQuestion[];
  tokens: number[];
  turnMs: number[];
  unanswered: number;
  /** Tools registered once the MCP servers were up (with --mcp). */
  tools?: number;
}

/** The first request after `from` that carries `question` as its newest user message (else the first after it). */
function causedBy(requests: Recorded[], from: number, question: string): RequestBody | null {
  const after = requests.filter((r) => r.seq > from);
  return (after.find((r) => newestUserText(r.body).includes(question)) ?? after[0])?.body ?? null;
}

/** MCP servers of the fixture, `servers` of them with `tools` tools each, as plugin.mcp.servers holds them. */
function mcpServers(servers: number, tools: number): string {
  const entry = {
    command: process.execPath,
    args: [
      "--conditions=development",
      "--import",
      import.meta.resolve("tsx"),
      FIXTURE_SERVER,
      "stdio",
      "--tools",
      String(tools),
    ],
    cwd: fileURLToPath(new URL("..", import.meta.url)),
  };
  return JSON.stringify(Object.fromEntries(Array.from({ length: servers }, (_, i) => [`bench${i}`, entry])));
}

/** Asks `/tools` until every server's last tool is registered; resolves with how many tools there are. */
async function waitForMcp(client: RawCliClient, servers: number, tools: number): Promise<number> {
  const deadline = performance.now() + MCP_READY_TIMEOUT_MS;
  const wanted = Array.from({ length: servers }, (_, i) => `bench${i}_tool_${tools - 1}`);
  while (performance.now() < deadline) {
    const before = client.finals().length;
    client.send("/tools\n");
    const frame = (await client.waitForFinals(before + 1, MESSAGE_TIMEOUT_MS))[before];
    const names = frame?.type === "tools" && Array.isArray(frame.tools) ? (frame.tools as string[]) : [];
    client.frames.length = 0;
    if (wanted.every((name) => names.includes(name))) return names.length;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the MCP servers' tools were not all registered within ${MCP_READY_TIMEOUT_MS} ms`);
}

async function runConversation(
  sample: Record<string, unknown>,
  questions: Question[],
  evidenceText: Map<string, string>,
  dist: boolean,
  mcp: { servers: number; tools: number } | null,
): Promise<ConversationResult> {
  const fake = await startOkServer();
  const dir = mkdtempSync(join(tmpdir(), "ha-memory-e2e-"));
  const result: ConversationResult = { scored: [], tokens: [], turnMs: [], unanswered: 0 };
  let homed: ChildProcess | null = null;
  try {
    homed = await startBenchHomed(dir, fake.url, { dist });
    const client = await RawCliClient.open(cliSocketPath(dir));
    await ask(client, `/settings set core.llm.sources.env.context_window ${CONTEXT_WINDOW}`);
    if (mcp) {
      await ask(client, `/settings set plugin.mcp.servers ${mcpServers(mcp.servers, mcp.tools)}`);
      result.tools = await waitForMcp(client, mcp.servers, mcp.tools);
    }
    const send = async (line: string) => {
      const t0 = performance.now();
      await ask(client, line);
      result.turnMs.push(performance.now() - t0);
    };
    // Only the token count of replay requests is kept; bodies grow with the prompt.
    const drain = () => {
      for (const r of fake.requests.splice(0)) result.tokens.push(promptTokens(r.body));
    };
    const turns = replayTurns(sample);
    for (const [i, t] of turns.entries()) {
      await send(t.line);
      drain();
      if ((i + 1) % 100 === 0) process.stderr.write(`  ${sample.sample_id}: ${i + 1}/${turns.length} turns\n`);
    }
    for (const q of questions) {
      const question = oneLine(q.question);
      const from = fake.requests.at(-1)?.seq ?? 0;
      await send(question);
      const body = causedBy(fake.requests, from, question);
      if (!body) result.unanswered++;
      const evidence = q.evidence.map((id) => evidenceText.get(id) ?? "");
      result.scored.push({ category: q.category, score: scoreQuestion(evidence, body) });
      drain();
    }
    client.destroy();
  } finally {
    if (homed) await stopBenchHomed(homed);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

const { values } = parseArgs({
  options: {
    data: { type: "string" },
    conversations: { type: "string" },
    dist: { type: "boolean", default: false },
    mcp: { type: "string" },
  },
});
const mcpMatch = values.mcp === undefined ? null : /^(\d+):(\d+)$/.exec(values.mcp);
if (values.mcp !== undefined && !mcpMatch) throw new Error("--mcp takes SERVERS:TOOLS, e.g. 5:25");
const mcp = mcpMatch ? { servers: Number(mcpMatch[1]), tools: Number(mcpMatch[2]) } : null;
let toolsRegistered = 0;
const file = values.data ?? DEV_SPLIT;
const samples = JSON.parse(readFileSync(file, "utf8")) as Array<Record<string, unknown>>;
const limit = values.conversations === undefined ? samples.length : Number(values.conversations);
if (!Number.isInteger(limit) || limit < 1) throw new Error("--conversations takes a whole number ≥ 1");
const data = loadLocomo(file);

const scored: ScoredQuestion[] = [];
const tokens: number[] = [];
const turnMs: number[] = [];
const started = performance.now();
for (const sample of samples.slice(0, limit)) {
  const id = String(sample.sample_id);
  const questions = data.questions.filter(
    (q) => q.conversation === id && CATEGORIES.has(q.category) && q.evidence.length > 0,
  );
  const evidenceText = new Map(data.turns.filter((t) => t.conversation === id).map((t) => [t.diaId, t.text]));
  const t0 = performance.now();
  const r = await runConversation(sample, questions, evidenceText, values.dist === true, mcp);
  toolsRegistered = r.tools ?? toolsRegistered;
  scored.push(...r.scored);
  tokens.push(...r.tokens);
  turnMs.push(...r.turnMs);
  const s = summarise(r.scored);
  process.stderr.write(
    `${id}: recall ${s.recall} over ${r.scored.length} questions` +
      `${r.unanswered ? ` (${r.unanswered} caused no LLM request)` : ""}, ${Math.round((performance.now() - t0) / 1000)} s\n`,
  );
}
process.stderr.write(`total ${Math.round((performance.now() - started) / 1000)} s\n`);

const sortedMs = [...turnMs].sort((a, b) => a - b);
const { recall, by_category } = summarise(scored);
console.log(
  JSON.stringify({
    bench: "memory-e2e",
    recall,
    by_category,
    questions: scored.length,
    prompt_tokens_mean: tokens.length ? Math.round(tokens.reduce((a, b) => a + b, 0) / tokens.length) : 0,
    prompt_tokens_max: tokens.length ? Math.ceil(Math.max(...tokens)) : 0,
    over_window: tokens.filter((t) => t > CONTEXT_WINDOW).length,
    ...(mcp ? { mcp_servers: mcp.servers, tools: toolsRegistered } : {}),
    turn_ms_p50: Math.round(percentile(sortedMs, 0.5) * 100) / 100,
    turn_ms_p99: Math.round(percentile(sortedMs, 0.99) * 100) / 100,
  }),
);
