/** How a turn's deltas become the text an append-only OpenAI stream sends (stream-text.ts). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { StreamText } from "./stream-text.js";

/** Feeds deltas (a `null` is a reset) and returns everything sent, joined. */
function feed(text: StreamText, deltas: Array<string | null>): string {
  return deltas.map((d) => (d === null ? text.delta("", true) : text.delta(d, false))).join("");
}

describe("StreamText", () => {
  test("deltas pass through as they arrive, and a reply equal to them adds nothing", () => {
    const t = new StreamText();
    assert.equal(t.delta("你好", false), "你好");
    assert.equal(t.delta(", world", false), ", world");
    assert.equal(t.finish("你好, world"), "");
  });

  test("a reset whose new text repeats what was sent sends only what goes beyond it", () => {
    const t = new StreamText();
    const sent = feed(t, ["Hel", "lo", null, "He", "llo", " there"]);
    assert.equal(sent, "Hello there");
    assert.equal(t.finish("Hello there"), "");
  });

  test("a reset whose new text differs sends it whole after a blank line", () => {
    const t = new StreamText();
    const sent = feed(t, ["The weather is", null, "Sorry, ", "it rains"]);
    assert.equal(sent, "The weather is\n\nSorry, it rains");
    assert.equal(t.finish("Sorry, it rains"), "");
  });

  test("a reset before any text changes nothing", () => {
    const t = new StreamText();
    assert.equal(feed(t, [null, "ok"]), "ok");
  });

  test("the text of a round before tool calls is kept and the next round starts a new paragraph", () => {
    const t = new StreamText();
    let sent = feed(t, ["Let me check."]);
    t.boundary();
    sent += feed(t, ["It is 20 °C."]);
    assert.equal(sent, "Let me check.\n\nIt is 20 °C.");
    assert.equal(t.finish("It is 20 °C."), "");
  });

  test("a round with tool calls and no text adds no blank line", () => {
    const t = new StreamText();
    t.boundary();
    assert.equal(feed(t, ["done"]), "done");
  });

  test("a reply that extends what was sent sends the rest", () => {
    const t = new StreamText();
    feed(t, ["partial"]);
    assert.equal(t.finish("partial reply"), " reply");
  });

  test("a reply a stage rewrote follows what was sent after a blank line", () => {
    const t = new StreamText();
    feed(t, ["secret 1234"]);
    assert.equal(t.finish("secret ****"), "\n\nsecret ****");
  });

  test("a reply with nothing streamed (a stage answered) is sent whole", () => {
    const t = new StreamText();
    assert.equal(t.finish("answered by a plugin"), "answered by a plugin");
  });

  test("a reply that is the text of the last tool round (every call refused) is not sent twice", () => {
    const t = new StreamText();
    feed(t, ["I will run it."]);
    t.boundary();
    assert.equal(t.finish("I will run it."), "");
  });

  test("a stop after the last tool round (max turns) is sent after a blank line", () => {
    const t = new StreamText();
    feed(t, ["Checking."]);
    t.boundary();
    assert.equal(t.finish("Stopped: tool execution exceeded 3 turns"), "\n\nStopped: tool execution exceeded 3 turns");
  });
});
