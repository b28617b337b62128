/**
 * A rehearsal of whole turns right after start, on scratch state, so that the user's first reply does not
 * run every function of the turn for the first time (issue 20: the first turn took 5–6× a warm one, its
 * time spread over all the code it touches — V8 compiles a function when it first runs and optimizes it
 * only after a few runs). The rehearsal runs the real kernel, memory and LLM code: a scratch memory store
 * in a private temporary folder (mkdtemp: 0700, a fresh name) outside the data dir, a kernel of its own,
 * the offline lexical embedder, and the bundled OpenAI adapter talking over real HTTP to a server of its own
 * on 127.0.0.1 that answers every request with the same short streamed reply.
 *
 * It reads the agent settings (so that its prompts have their real shape; they go only to its own loopback
 * server and are not written anywhere) and nothing else of the user's: not the memory, event bus, plugins,
 * embedding provider or LLM sources (their API keys never leave their provider). Nothing here is the user's
 * to forget: a folder left by a process killed during a rehearsal holds only its fixed lines. The
 * folder is removed when the rehearsal ends. Stopping it (the caller's signal) ends it after the turn under
 * way, a few milliseconds: cancelling that turn could leave its Lua worker to be terminated in the middle of
 * a call, which Node 20 may abort the whole process for (worker-host.ts, close). A failure is only logged.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@homeagent/sdk";
import { LexicalEmbedder } from "../embedding/lexical.js";
import { tokenize } from "../embedding/text.js";
import { Agent } from "../kernel/agent.js";
import type { AgentSettings } from "../kernel/types.js";
import { bundledAdapterLibraries, bundledAdapterSource } from "../llm/adapters.js";
import { LuaAdaptedProvider } from "../llm/lua-provider.js";
import { ProviderManager } from "../llm/manager.js";
import { openMemoryStore } from "../memory/store.js";
import { MemorySystem } from "../memory/system.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { userZone } from "../util/time-zone.js";
import { agentParts } from "./agent-parts.js";

export interface RehearsalOptions {
  settings: AgentSettings;
  /** Rehearse with a line of Chinese too (the user is expected to write CJK text). */
  cjk: boolean;
  /** Stops the rehearsal (the daemon is stopping, a real turn began) once the turn under way is answered. */
  signal: AbortSignal;
  /** Where its private scratch folder is made (default: the system's temporary folder). */
  scratchRoot?: string;
  log: Logger;
}

/**
 * Lines rehearsed, each ROUNDS times: enough turns for the window to overflow (the scratch window holds two
 * events), so pruning and archiving into documents run as well as related memory over archived turns, and
 * for V8 to optimize what a turn runs most (bench:idle: the first turn after start at 4.7–5.7× a warm one
 * without a rehearsal, 3.3–3.9× after one round, 2.8–3.4× after five).
 */
const LINES = ["What did we talk about yesterday?", "Remind me what I said about the weather.", "Thanks, that helps."];
const CJK_LINE = "How was the weather yesterday? 我们昨天聊了什么？";
const ROUNDS = 5;
const WINDOW = 2;

const QUIET: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Runs the rehearsal; resolves with the number of turns answered once it is over and cleaned up. */
export async function rehearseTurns(opts: RehearsalOptions): Promise<number> {
  const { signal } = opts;
  if (signal.aborted) return 0;
  // Undone in reverse, each step on its own: one that fails (a full disk) must not keep the others from running.
  const undo: Array<() => unknown> = [];
  let answered = 0;
  try {
    const dir = mkdtempSync(join(opts.scratchRoot ?? tmpdir(), "homeagent-rehearsal-"));
    undo.push(() => rmSync(dir, { recursive: true, force: true }));
    const server = await replyServer();
    undo.push(async () => {
      // The client keeps its connection alive for the next request: closed here, not after the server's timeout.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const db = openMemoryStore(join(dir, "memory.db"));
    undo.push(() => db.close());
    const memory = new MemorySystem({
      db,
      dataDir: dir,
      settings: { maxContextSize: () => WINDOW, zone: () => userZone(opts.settings.timezone()), duration: () => 0 },
      log: QUIET,
    });
    undo.push(() => memory.close());
    memory.setEmbedder(new LexicalEmbedder());
    const llm = new ProviderManager({ log: QUIET });
    undo.push(() => llm.close());
    llm.setSources([{ name: "rehearsal", provider: rehearsalProvider(server), priority: 0 }]);
    const agent = new Agent({
      llm,
      context: memory.context,
      memory: memory.memoryContext,
      settings: { ...opts.settings, maxContextSize: () => WINDOW },
      log: QUIET,
      ...agentParts(QUIET),
      words: tokenize,
    });
    undo.push(() => agent.stop());
    agent.start();
    const lines = opts.cjk ? [...LINES, CJK_LINE] : LINES;
    for (let i = 0; i < ROUNDS * lines.length && !signal.aborted; i++) {
      const reply = await agent.injectInputSync("rehearsal", "rehearsal", lines[i % lines.length]);
      if (reply.error) throw new HomeAgentError({ code: "internal_error", message: reply.error });
      answered++;
    }
  } catch (err) {
    opts.log.debug(`rehearsing a turn: ${errorMessage(err)}`);
  } finally {
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch (err) {
        opts.log.debug(`cleaning up after the rehearsal: ${errorMessage(err)}`);
      }
    }
  }
  return answered;
}

function rehearsalProvider(server: Server): LuaAdaptedProvider {
  const { port } = server.address() as AddressInfo;
  return new LuaAdaptedProvider({
    sourceName: "rehearsal",
    adapterName: "openai",
    adapterSource: bundledAdapterSource("openai") as string,
    libraries: bundledAdapterLibraries(),
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey: "",
    model: "rehearsal",
  });
}

/** The reply every request gets: a short answer streamed as an OpenAI-compatible server streams it. */
const STREAM = [
  { choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
  { choices: [{ index: 0, delta: { content: "Noted." }, finish_reason: null }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
]
  .map((chunk) => `data: ${JSON.stringify({ id: "rehearsal", object: "chat.completion.chunk", ...chunk })}\n\n`)
  .concat("data: [DONE]\n\n");

/** Requests read at most this far (a rehearsal request is a few KiB); then the connection is dropped. */
const MAX_REQUEST_BYTES = 1024 * 1024;

function replyServer(): Promise<Server> {
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_REQUEST_BYTES) req.destroy();
    });
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const event of STREAM) res.write(event);
      res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}
