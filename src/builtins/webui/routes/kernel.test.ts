/**
 * Today's LLM usage in /api/v1/kernel, from a real daemon with a fake LLM that reports usage: chat turns,
 * an OpenAI-endpoint request and a self-task all count for the source that answered, tokens as the
 * provider reported them, and the figures survive a restart on the same data dir.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { LlmUsageToday } from "@homeagent/sdk";
import { tempDir } from "../../../../test/fixtures/temp-dir.js";
import { startWebDaemon, type WebDaemon } from "../../../../test/fixtures/webui.js";

const started: WebDaemon[] = [];
after(async () => {
  for (const web of started) await web.stop().catch(() => {});
});

async function start(dataDir: string): Promise<WebDaemon> {
  const web = await startWebDaemon({ webuiOnly: true, dataDir });
  started.push(web);
  return web;
}

async function usage(web: WebDaemon): Promise<LlmUsageToday> {
  const res = await web.json("GET", "/api/v1/kernel");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.status.usage;
}

test("turns and reported tokens per source reach /api/v1/kernel and survive a restart", async () => {
  const dataDir = tempDir("ha-usage-daemon-");
  const web = await start(dataDir);
  const before = await usage(web);
  assert.deepEqual(before.sources, []);
  assert.ok(before.hour >= 0 && before.hour <= 23);
  assert.match(before.day, /^\d{4}-\d{2}-\d{2}$/);

  web.llm.enqueue(
    { text: "one", usage: { prompt_tokens: 11, completion_tokens: 3 } },
    { text: "two", usage: { prompt_tokens: 20, completion_tokens: 5 } },
  );
  for (const message of ["first", "second"]) {
    const res = await web.json("POST", "/api/v1/chat", { message });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  const afterChat = await usage(web);
  assert.equal(afterChat.day, before.day);
  const [env] = afterChat.sources;
  assert.deepEqual(
    {
      name: env?.name,
      turns: env?.turns,
      calls: env?.calls,
      prompt: env?.promptTokens,
      completion: env?.completionTokens,
    },
    { name: "env", turns: 2, calls: 2, prompt: 31, completion: 8 },
  );
  const hours = env?.byHour ?? [];
  assert.ok(hours.length >= 1 && hours.every((h) => h.hour <= afterChat.hour));
  assert.deepEqual(
    hours.reduce((sum, h) => [sum[0] + h.turns, sum[1] + h.promptTokens, sum[2] + h.completionTokens], [0, 0, 0]),
    [2, 31, 8],
  );

  // A request to the OpenAI endpoint (a transient turn) and a self-task cost tokens too.
  web.llm.enqueue(
    { text: "three", usage: { prompt_tokens: 7, completion_tokens: 2 } },
    { text: "four", usage: { prompt_tokens: 5, completion_tokens: 1 } },
  );
  const openai = await web.json("POST", "/v1/chat/completions", {
    model: "homeagent",
    messages: [{ role: "user", content: "third" }],
  });
  assert.equal(openai.status, 200, JSON.stringify(openai.body));
  const self = await web.daemon.agent.injectSelf("tidy up");
  assert.equal(self.error, undefined);
  const counted = (await usage(web)).sources[0];
  assert.deepEqual([counted?.turns, counted?.promptTokens, counted?.completionTokens], [4, 43, 11]);

  await web.stop();
  const again = await start(dataDir);
  const restarted = await usage(again);
  if (restarted.day === afterChat.day) assert.deepEqual(restarted.sources, [counted]);
  else assert.deepEqual(restarted.sources, [], "the day changed during the test: today starts empty");
});
