/**
 * How bus events and answers change the chat's turns: binding a turn to its request (an attachment's
 * chat included), deltas, the final text (same text keeps the view, another starts it over), the page's
 * size cap, a reconnect's possible hole, truncated outputs and messages the agent sent on its own; versions
 * of a turn shown as one, the one in use showing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  applyDelta,
  applyInterrupt,
  applyOutput,
  bindRequest,
  chooseVersion,
  continues,
  failTurn,
  finishTurn,
  head,
  historyTurn,
  markGap,
  mergeHistory,
  newTurn,
  REPLY_KEEP_CHARS,
  settleEnded,
  shownTurns,
  type Turn,
  transcriptTurn,
  withAttachment,
} from "./chat-state";

function running(input = "hi", file?: { name: string; size: number }): Turn[] {
  return bindRequest([newTurn("c1", input, file)], {
    channel: "webui",
    requestId: "r1",
    text: file ? `${input}\n\n[attached file: uploads/${file.name} (1 KB, text/plain)]` : input,
  });
}

const delta = (turns: Turn[], content: string, reset = false) =>
  applyDelta(turns, { requestId: "r1", content, ...(reset ? { reset } : {}) }, "text");

describe("chat state", () => {
  it("binds a turn to its request, a chat with an attachment included", () => {
    assert.equal(running()[0].requestId, "r1");
    assert.equal(running("看看这个", { name: "笔记.txt", size: 12 })[0].requestId, "r1");
    const other = bindRequest([newTurn("c1", "hi")], { channel: "webui", requestId: "r9", text: "someone else" });
    assert.equal(other[0].requestId, undefined);
  });

  it("appends deltas, and a reset starts the text and its view over", () => {
    let turns = delta(delta(running(), "Hello "), "world");
    assert.equal(turns[0].text, "Hello world");
    assert.equal(turns[0].epoch, 0);
    turns = delta(turns, "", true);
    assert.equal(turns[0].text, "");
    assert.equal(turns[0].epoch, 1);
  });

  it("keeps the view when the final text is the streamed one, starts over when it is not", () => {
    const streamed = delta(running(), "Hello world");
    const same = applyOutput(streamed, { requestId: "r1", content: "Hello world" }, 7);
    assert.equal(same[0].state, "done");
    assert.equal(same[0].epoch, streamed[0].epoch);
    const rewritten = finishTurn(streamed, "c1", { requestId: "r1", response: "Hello, rewritten" });
    assert.equal(rewritten[0].text, "Hello, rewritten");
    assert.equal(rewritten[0].epoch, streamed[0].epoch + 1);
    const empty = finishTurn(streamed, "c1", { requestId: "r1", response: "" });
    assert.equal(empty[0].text, "Hello world", "an empty answer dropped the streamed text");
  });

  it("keeps at most REPLY_KEEP_CHARS of a reply, counts the rest and keeps the whole as a file at the end", async () => {
    const piece = "字".repeat(500_000);
    let turns = running();
    for (let i = 0; i < 5; i++) turns = delta(turns, piece);
    assert.equal(turns[0].text.length, REPLY_KEEP_CHARS);
    assert.equal(turns[0].omitted, 5 * piece.length - REPLY_KEEP_CHARS);
    assert.equal(turns[0].whole, undefined);
    const whole = piece.repeat(5);
    const done = finishTurn(turns, "c1", { requestId: "r1", response: whole });
    assert.equal(done[0].text.length, REPLY_KEEP_CHARS);
    assert.equal(done[0].epoch, turns[0].epoch, "the kept text is the same: the view should not start over");
    assert.equal(await done[0].whole?.text(), whole);
    assert.equal(historyTurn("h1", 1, "q", whole).omitted, whole.length - REPLY_KEEP_CHARS);
  });

  it("keeps the view going when the final text is the streamed one grown or trimmed", () => {
    assert.ok(continues("Hello", "Hello world"));
    assert.ok(continues("Hello world\n\n", "Hello world"));
    assert.ok(!continues("Hello world\n\nmore", "Hello world"));
    assert.ok(!continues("Hello", "Jello"));
    const streamed = delta(running(), "Hello world\n\n");
    const trimmed = finishTurn(streamed, "c1", { requestId: "r1", response: "Hello world" });
    assert.equal(trimmed[0].epoch, streamed[0].epoch, "a trimmed final text started the view over");
  });

  it("never cuts a surrogate pair in half", () => {
    assert.equal(head("a😀b", 2), "a");
    assert.equal(head("a😀b", 3), "a😀");
  });

  it("after a reconnect ignores further deltas of a running turn until its final text", () => {
    const gapped = markGap(delta(running(), "Part one, "));
    assert.equal(gapped[0].gap, true);
    const later = delta(gapped, "part three.");
    assert.equal(later[0].text, "Part one, ", "a delta after the hole was appended");
    const done = applyOutput(later, { requestId: "r1", content: "Part one, part two, part three." }, 9);
    assert.equal(done[0].text, "Part one, part two, part three.");
    assert.equal(done[0].gap, false);
    assert.equal(markGap(done), done, "a finished turn was marked");
    assert.equal(failTurn(markGap(running()), "c1", "boom")[0].gap, false);
  });

  it("keeps the streamed text when agent_output was cut to fit one event", () => {
    const streamed = delta(running(), "the whole long reply");
    const cut = applyOutput(streamed, { requestId: "r1", content: "the whole… [9 more chars]", truncated: true }, 3);
    assert.equal(cut, streamed);
  });

  it("shows a message the agent sent on its own as a turn of its own, once", () => {
    const turns = delta(running(), "reply text");
    const spoken = applyOutput(turns, { requestId: "r1", content: "Reminder: tea", sent: true }, 42);
    assert.equal(spoken.length, 2);
    assert.equal(spoken[0].text, "reply text", "the turn's own reply was replaced by the sent message");
    assert.deepEqual([spoken[1].input, spoken[1].text, spoken[1].state], ["", "Reminder: tea", "done"]);
    assert.equal(applyOutput(spoken, { content: "Reminder: tea", sent: true }, 42), spoken);
    const restarted = applyOutput(spoken, { content: "Another one", sent: true }, 42);
    assert.equal(restarted.length, 3, "a message with a seq seen before (a restarted daemon) was dropped");
    assert.notEqual(restarted[2].id, restarted[1].id);
  });

  it("a turn of another channel is a turn of its own, with its channel; a self-task is not shown", () => {
    const turns = bindRequest([], { channel: "cli", requestId: "r7", text: "from waiter" });
    assert.deepEqual(
      turns.map((t) => [t.input, t.channel, t.requestId, t.state]),
      [["from waiter", "cli", "r7", "pending"]],
    );
    assert.equal(bindRequest(turns, { channel: "cli", requestId: "r7", text: "from waiter" }), turns, "once");
    assert.deepEqual(bindRequest([], { channel: "kernel", requestId: "r8", text: "consolidate", self: true }), []);
  });

  it("a transcript entry becomes a turn: tool and approval cards, its channel, a failure as an error", () => {
    const turn = transcriptTurn({
      id: 4,
      kind: "turn",
      requestId: "r4",
      ts: 1,
      source: "cli",
      channel: "cli",
      noMemory: false,
      input: "ls /",
      reasoning: "think",
      reply: "bin etc",
      status: "done",
      items: [
        { type: "tool", id: "c1", name: "cmd_run", args: "{}", status: "ok", result: "bin etc", durationMs: 5 },
        { type: "approval", id: "a1", plugin: "cmd", question: "run ls /", outcome: "once", by: "waiter" },
      ],
    });
    assert.equal(turn.text, "bin etc");
    assert.equal(turn.channel, "cli");
    assert.equal(turn.entryId, 4);
    assert.deepEqual(
      turn.tools.map((c) => [c.kind ?? "tool", c.name, c.status]),
      [
        ["tool", "cmd_run", "ok"],
        ["approval", "cmd", "once"],
      ],
    );
    const stopped = transcriptTurn({
      id: 5,
      kind: "turn",
      ts: 2,
      source: "webui",
      channel: "webui",
      noMemory: false,
      input: "long job",
      reasoning: "",
      reply: "",
      status: "stopped",
      error: "stopped by the user",
      items: [],
    });
    assert.deepEqual([stopped.state, stopped.error, stopped.channel], ["error", "stopped by the user", undefined]);
  });

  it("history merges with what is shown: no turn twice, and a running entry binds this page's pending turn", () => {
    const entry = (id: number, requestId: string, input: string, status: "running" | "done", channel = "webui") => ({
      id,
      kind: "turn" as const,
      requestId,
      ts: id,
      source: channel,
      channel,
      noMemory: false,
      input,
      reasoning: "",
      reply: status === "done" ? `re ${input}` : "",
      status,
      items: [],
    });
    const shown = [newTurn("c1", "hello")];
    const merged = mergeHistory(shown, [entry(2, "r2", "hello", "running"), entry(1, "r1", "earlier", "done")]);
    assert.deepEqual(
      merged.map((t) => [t.input, t.requestId]),
      [
        ["earlier", "r1"],
        ["hello", "r2"],
      ],
      "the running entry is the pending turn, bound; not a second 'hello'",
    );
    assert.equal(mergeHistory(merged, [entry(2, "r2", "hello", "running")]).length, 2, "nothing twice");

    const other = bindRequest([], { channel: "cli", requestId: "r9", text: "from waiter" });
    const settled = settleEnded(markGap(other), [entry(9, "r9", "from waiter", "done", "cli")]);
    assert.deepEqual([settled[0].state, settled[0].text], ["done", "re from waiter"]);
    assert.equal(settleEnded(other, [entry(9, "r9", "from waiter", "running", "cli")])[0].state, "pending");
  });

  it("versions of a turn show as one, where the newest is, the one in use showing; choosing one puts it in use", () => {
    const version = (id: string, ts: number, more: Partial<Turn> = {}): Turn => ({
      ...historyTurn(id, ts, "capital of France?", `reply ${id}`),
      requestId: id,
      ...more,
    });
    const turns = [
      version("r1", 1),
      { ...historyTurn("w", 2, "from waiter", "hi"), requestId: "w", channel: "cli" },
      version("r2", 3, { versionOf: "r1" }),
      version("r3", 4, { versionOf: "r1", chosenAt: 4 }),
      version("r4", 5, { versionOf: "r3" }),
      version("r5", 6),
    ];
    const shown = shownTurns(turns);
    assert.deepEqual(
      shown.map((s) => [s.turn.requestId, s.versions.map((v) => v.requestId)]),
      [
        ["w", ["w"]],
        ["r4", ["r1", "r2", "r3", "r4"]],
        ["r5", ["r5"]],
      ],
    );
    const chosen = chooseVersion(turns, "r2");
    assert.equal(shownTurns(chosen)[1].turn.requestId, "r2", "chosen back: in use, whatever the clocks");
    assert.equal(chooseVersion(chosen, "r2"), chosen, "the version in use already: nothing changes");
    assert.equal(shownTurns([version("a", 1), version("b", 2)]).length, 2, "no versions: every turn on its own");
    // Versions whose first one is not on the page (an older page not loaded, or expired) still go together.
    const orphans = shownTurns([version("r8", 8, { versionOf: "r0" }), version("r9", 9, { versionOf: "r0" })]);
    assert.deepEqual(
      orphans.map((s) => s.versions.length),
      [2],
    );
  });

  it("a message sent with a file shows as the message and a link to the file", () => {
    assert.deepEqual(withAttachment("看看这个\n\n[attached file: uploads/笔记 (2).txt (1.2 KB, text/plain)]"), {
      input: "看看这个",
      attachment: { name: "笔记 (2).txt", size: "1.2 KB", url: `/uploads/${encodeURIComponent("笔记 (2).txt")}` },
    });
    assert.deepEqual(withAttachment("no file here"), { input: "no file here" });
  });

  it("what the user said while a turn ran joins that turn, once", () => {
    const said = { kind: "interrupt", requestId: "r1", source: "webui", text: "也看看 docs" };
    const turns = applyInterrupt(running(), said, 7);
    assert.deepEqual(turns[0].tools, [{ id: "interrupt-7", kind: "interrupt", name: "webui", args: "也看看 docs" }]);
    assert.equal(applyInterrupt(turns, said, 7), turns, "a replayed event is not shown twice");
    assert.equal(applyInterrupt(turns, { kind: "interrupt", source: "timer" }, 8), turns, "not inside a turn shown");
  });
});
