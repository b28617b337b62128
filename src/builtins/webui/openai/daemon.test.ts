/**
 * The OpenAI-compatible endpoint inside a real daemon (kernel, memory, auth, the webui server) with a fake
 * LLM speaking the real wire format, driven by the official `openai` client: streaming and not, history
 * reaching the LLM, client tools refused, a disconnect cancelling the LLM call, and memory left alone
 * unless plugin.webui.openai_memory is on — and the README's curl lines, run as they are.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import OpenAI from "openai";
import { waitFor } from "../../../../test/fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../../../../test/fixtures/webui.js";

let web: WebDaemon;
let client: OpenAI;

before(async () => {
  web = await startWebDaemon({ webuiOnly: true });
  client = new OpenAI({ baseURL: `${web.base}/v1`, apiKey: web.apiKey, maxRetries: 0 });
});

after(async () => {
  await web?.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: the fake LLM records the raw wire body
function lastLlmMessages(): Array<{ role: string; content: any }> {
  return web.llm.requests.filter((r) => r.path.endsWith("/chat/completions")).at(-1)?.body.messages ?? [];
}

async function timeline() {
  const memory = web.daemon.host.memory?.memory;
  assert.ok(memory, "memory is running");
  return memory.timeline();
}

describe("the OpenAI endpoint in a real daemon", () => {
  test("streams real deltas, Chinese and English, with reasoning and usage last", async () => {
    const text = "你好，世界！Hello, world — 今天天气不错。";
    web.llm.enqueue({ text, reasoning: "先想一想", pieceChars: 3 });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      stream: true,
      messages: [{ role: "user", content: "打个招呼 (say hi)" }],
    });
    let content = "";
    let reasoning = "";
    let contentChunks = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      assert.equal(chunk.model, "homeagent");
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      if (delta?.content) {
        content += delta.content;
        contentChunks++;
      }
      reasoning += delta?.reasoning_content ?? "";
      finish ??= chunk.choices[0]?.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(content, text);
    assert.equal(reasoning, "先想一想");
    assert.ok(contentChunks >= 5, `the text came in pieces as the LLM sent them (${contentChunks} chunks)`);
    assert.equal(finish, "stop");
    assert.ok(usage && usage.total_tokens > 0, "usage in the last chunk");
  });

  test("answers a non-streaming request with the whole reply and usage", async () => {
    web.llm.enqueue({ text: "Paris is the capital of France.", usage: { prompt_tokens: 40, completion_tokens: 7 } });
    const done = await client.chat.completions.create({
      model: "anything",
      messages: [{ role: "user", content: "What is the capital of France?" }],
    });
    assert.equal(done.object, "chat.completion");
    assert.equal(done.model, "homeagent");
    assert.equal(done.choices[0].message.role, "assistant");
    assert.equal(done.choices[0].message.content, "Paris is the capital of France.");
    assert.deepEqual(done.usage, { prompt_tokens: 40, completion_tokens: 7, total_tokens: 47 });
    // Channel "http" has no output channel: a sync input's reply goes to its caller, and nothing is dropped.
    assert.ok(!web.logs.some((l) => l.includes("no output channel")), "no reply was dropped");
  });

  test("the request's messages reach the LLM: earlier turns as chat messages, system messages as context", async () => {
    web.llm.enqueue({ text: "Your name is Ann." });
    await client.chat.completions.create({
      model: "homeagent",
      messages: [
        { role: "system", content: "SYSTEM-MARKER: be brief." },
        { role: "user", content: "My name is Ann." },
        { role: "assistant", content: "Hello Ann, nice to meet you." },
        { role: "user", content: "What is my name?" },
      ],
    });
    const sent = lastLlmMessages();
    const userAt = sent.findIndex((m) => m.role === "user" && m.content === "My name is Ann.");
    assert.ok(userAt >= 0, `the earlier user message is a chat message: ${JSON.stringify(sent)}`);
    assert.deepEqual(sent[userAt + 1], { role: "assistant", content: "Hello Ann, nice to meet you." });
    assert.ok(
      sent.some((m) => m.role === "system" && String(m.content).includes("SYSTEM-MARKER: be brief.")),
      "the system message is context",
    );
    const last = sent.at(-1);
    assert.equal(last?.role, "user");
    assert.match(String(last?.content), /What is my name\?/);
  });

  test("client tools are refused as a BadRequestError that explains why", async () => {
    const before = web.llm.requests.length;
    await assert.rejects(
      client.chat.completions.create({
        model: "homeagent",
        messages: [{ role: "user", content: "weather?" }],
        tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
      }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.BadRequestError, String(err));
        assert.equal(err.status, 400);
        assert.match(err.message, /runs its own tools on the server/);
        return true;
      },
    );
    assert.equal(web.llm.requests.length, before, "nothing reached the LLM");
  });

  test("a wrong API key is an AuthenticationError", async () => {
    const stranger = new OpenAI({ baseURL: `${web.base}/v1`, apiKey: "wrong-key", maxRetries: 0 });
    await assert.rejects(
      stranger.chat.completions.create({ model: "homeagent", messages: [{ role: "user", content: "hi" }] }),
      OpenAI.AuthenticationError,
    );
  });

  test("lists the homeagent model", async () => {
    const page = await client.models.list();
    assert.deepEqual(
      page.data.map((m) => [m.id, m.object, m.owned_by]),
      [["homeagent", "model", "homeagent"]],
    );
  });

  test("a streaming client that disconnects cancels the turn: the LLM stream is aborted", async () => {
    web.llm.enqueue({ text: "tick ", endless: true, frameIntervalMs: 5 });
    const abort = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "homeagent", stream: true, messages: [{ role: "user", content: "count forever" }] },
      { signal: abort.signal },
    );
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) break;
    }
    // Text arrived, so the LLM call in flight is the last one the fake LLM got.
    const request = web.llm.requests.at(-1);
    assert.equal(request?.aborted, false);
    abort.abort();
    await waitFor(() => request?.aborted, "the fake LLM to see its stream aborted");
    await waitFor(() => !web.daemon.agent.status().busy, "the turn to end");
  });

  test("a non-streaming client that disconnects cancels the turn too", async () => {
    web.llm.enqueue({ text: "tock ", endless: true, frameIntervalMs: 5 });
    const count = web.llm.requests.length;
    const abort = new AbortController();
    const answer = client.chat.completions
      .create({ model: "homeagent", messages: [{ role: "user", content: "wait" }] }, { signal: abort.signal })
      .catch((err: unknown) => err);
    await waitFor(() => web.llm.requests.length > count, "the LLM call to start");
    const request = web.llm.requests.at(-1);
    abort.abort();
    assert.ok((await answer) instanceof OpenAI.APIUserAbortError);
    await waitFor(() => request?.aborted, "the fake LLM to see its stream aborted");
    await waitFor(() => !web.daemon.agent.status().busy, "the turn to end");
  });

  test("requests leave the context window alone; with openai_memory on they are recorded", async () => {
    const before = await timeline();
    web.llm.enqueue({ text: "noted" });
    await client.chat.completions.create({
      model: "homeagent",
      messages: [{ role: "user", content: "transient-marker: do not keep this" }],
    });
    const afterTransient = await timeline();
    assert.deepEqual(
      afterTransient.map((e) => e.id),
      before.map((e) => e.id),
      "the window is unchanged",
    );
    web.daemon.config.set("plugin.webui.openai_memory", "true");
    try {
      web.llm.enqueue({ text: "kept" });
      await client.chat.completions.create({
        model: "homeagent",
        messages: [{ role: "user", content: "memory-marker: keep this" }],
      });
      const recorded = (await timeline()).filter((e) => !before.some((b) => b.id === e.id));
      assert.equal(recorded.length, 1, JSON.stringify(recorded));
      assert.equal(recorded[0].source, "openai");
      assert.equal(recorded[0].channel, "http");
      assert.match(recorded[0].input, /memory-marker: keep this/);
      assert.equal(recorded[0].response, "kept");
    } finally {
      web.daemon.config.set("plugin.webui.openai_memory", "");
    }
  });
});

/** The README's curl examples: the ```sh blocks between its curl-examples markers but the setup one, in order. */
function curlExamples(): string[] {
  const readme = readFileSync(new URL("../../../../README.md", import.meta.url), "utf8");
  const start = readme.indexOf("<!-- curl-examples:start");
  const end = readme.indexOf("<!-- curl-examples:end -->");
  assert.ok(start >= 0 && end > start, "README.md marks its curl examples");
  const blocks = [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks.filter((block) => !block.startsWith("export "));
}

function hasCurl(): boolean {
  try {
    execFileSync("curl", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("the README's curl lines", {
  skip: hasCurl() ? false : "curl is not installed here; install it to run the README's curl lines",
}, () => {
  /** Runs one example exactly as written, with the variables the setup block would have set. */
  async function run(example: string): Promise<string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOMEAGENT_URL: web.base,
      HOMEAGENT_API_KEY: web.apiKey,
    };
    const { stdout } = await promisify(execFile)("sh", ["-c", example], { env, timeout: 20_000 });
    return stdout;
  }

  test("the README has the three examples: models, one answer, a stream", () => {
    const examples = curlExamples();
    assert.equal(examples.length, 3);
    assert.ok(examples.every((e) => e.startsWith("curl ")));
  });

  test("GET /v1/models", async () => {
    const [models] = curlExamples();
    const body = JSON.parse(await run(models));
    assert.equal(body.object, "list");
    assert.equal(body.data[0].id, "homeagent");
  });

  test("a whole answer as JSON", async () => {
    const [, once] = curlExamples();
    web.llm.enqueue({ text: "Hello from HomeAgent." });
    const body = JSON.parse(await run(once));
    assert.equal(body.choices[0].message.content, "Hello from HomeAgent.");
    assert.equal(body.usage.total_tokens > 0, true);
  });

  test("a stream with earlier turns", async () => {
    const [, , streamed] = curlExamples();
    web.llm.enqueue({ text: "你叫小明。", pieceChars: 1 });
    const out = await run(streamed);
    const lines = out.split("\n\n").filter((l) => l.trim());
    assert.equal(lines.at(-1), "data: [DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.replace(/^data: /, "")));
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
    assert.equal(text, "你叫小明。");
    assert.ok(chunks.at(-1).usage, "usage last");
    const sent = lastLlmMessages();
    assert.ok(
      sent.some((m) => m.role === "assistant" && m.content === "你好，小明！"),
      JSON.stringify(sent),
    );
  });
});
