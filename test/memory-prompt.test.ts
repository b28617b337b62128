/**
 * Acceptance (issue 8), end to end: a real `homed` with the fake LLM. A fact told in one turn is pruned out
 * of a small context window by unrelated turns; a later related question's LLM request still carries the
 * fact, verbatim, dated in the user's zone (core.agent.timezone), in the related-memory section — and
 * `/memory timeline` shows the fact is no longer in the window.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type FakeLLM, type RecordedRequest, startFakeLLM } from "./fixtures/fake-llm.js";
import { CliLines, type HomedProcess, startHomedOn } from "./fixtures/homed-process.js";
import { tempDir } from "./fixtures/temp-dir.js";

const ZONE = "Asia/Shanghai";
const MAX_CONTEXT = 12;
const FACT = "My sister Mia moved to Lisbon in March and teaches violin at a music school in Alfama.";
const QUESTION = "Where does my sister Mia live now, and what does she teach?";
const FILLER = [
  "What is the boiling point of water at the top of a high mountain?",
  "Give me three tips for writing clearer emails.",
  "帮我想一个周末读书会的主题。",
  "How do I convert a CSV file to JSON on the command line?",
  "解释一下什么是复利。",
  "Suggest a warm-up routine before running.",
  "What is the difference between a list and a tuple?",
  "推荐几部适合全家看的纪录片。",
];
const FILLER_TURNS = 16;

/** `2025-03-08 14:05` in `zone`, computed independently of the daemon's own date code. */
function minuteIn(ms: number, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

interface ChatMessage {
  role: string;
  content: string | null;
}

function newestUser(r: RecordedRequest): string {
  const messages = (r.body?.messages ?? []) as ChatMessage[];
  return messages.findLast((m) => m.role === "user")?.content ?? "";
}

/** Every message of the request but the newest user message (the question itself), joined. */
function promptText(r: RecordedRequest): string {
  const messages = (r.body?.messages ?? []) as ChatMessage[];
  const last = messages.findLastIndex((m) => m.role === "user");
  return messages
    .filter((_, i) => i !== last)
    .map((m) => m.content ?? "")
    .join("\n");
}

test("a fact pruned out of the context is in the prompt of a later related question, verbatim, with its date", async () => {
  let fake: FakeLLM | null = null;
  let homed: HomedProcess | null = null;
  let cli: CliLines | null = null;
  try {
    fake = await startFakeLLM();
    homed = await startHomedOn(tempDir("ha-memory-prompt-"), {
      HOMEAGENT_LLM_BASE_URL: fake.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
    });
    cli = await CliLines.open(homed.socket);
    await cli.text(`/settings set core.agent.max_context_size ${MAX_CONTEXT}`);
    await cli.text(`/settings set core.agent.timezone ${ZONE}`);

    const toldFrom = Date.now();
    assert.equal(await cli.text(FACT), "ok");
    const toldUntil = Date.now();
    for (let i = 0; i < FILLER_TURNS; i++) assert.equal(await cli.text(FILLER[i % FILLER.length]), "ok");

    const timeline = await cli.text("/memory timeline");
    assert.ok(!timeline.includes("Mia"), `the fact is still in the window:\n${timeline}`);
    assert.ok(timeline.split("\n").length <= MAX_CONTEXT, `the window holds at most ${MAX_CONTEXT} events`);

    const asked = fake.requests.length;
    assert.equal(await cli.text(QUESTION), "ok");
    const request = fake.requests.slice(asked).find((r) => r.method === "POST" && newestUser(r).includes(QUESTION));
    assert.ok(request, "the question reached the LLM");
    const prompt = promptText(request);
    assert.ok(prompt.includes(FACT), `the question's request lacks the fact verbatim:\n${prompt}`);
    // Dated like every related-memory excerpt: `[YYYY-MM-DD HH:MM] <source>: <input>`, in the user's zone.
    const dated = [...new Set([minuteIn(toldFrom, ZONE), minuteIn(toldUntil, ZONE)])].map((d) => `[${d}] cli: ${FACT}`);
    assert.ok(
      dated.some((line) => prompt.includes(line)),
      `the fact is not dated in ${ZONE} (expected one of ${JSON.stringify(dated)}):\n${prompt}`,
    );
    const utc = `[${minuteIn(toldFrom, "UTC")}] cli: ${FACT}`;
    assert.ok(!prompt.includes(utc), "the date is the user's zone, not UTC");
  } finally {
    cli?.close();
    const code = homed ? await homed.stop() : 0;
    await fake?.close();
    assert.equal(code, 0, `homed stops cleanly:\n${homed?.stderr()}`);
  }
});
