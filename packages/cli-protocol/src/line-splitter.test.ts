import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LineSplitter } from "./line-splitter.js";

function collect(maxBytes = 16) {
  const lines: string[] = [];
  let oversize = 0;
  const splitter = new LineSplitter(
    maxBytes,
    (line) => lines.push(line),
    () => oversize++,
  );
  return { splitter, lines, oversize: () => oversize };
}

describe("LineSplitter", () => {
  it("joins lines across chunks, strips CR and keeps split multi-byte characters", () => {
    const { splitter, lines } = collect();
    const bytes = Buffer.from("你好\r\nb");
    splitter.push(bytes.subarray(0, 2));
    splitter.push(bytes.subarray(2));
    splitter.push(Buffer.from("c\n"));
    assert.deepEqual(lines, ["你好", "bc"]);
  });

  it("reports an oversized line once and goes on with the next", () => {
    const { splitter, lines, oversize } = collect(4);
    splitter.push(Buffer.from("abcdefgh"));
    splitter.push(Buffer.from("ij\nok\n"));
    assert.deepEqual(lines, ["ok"]);
    assert.equal(oversize(), 1);
  });

  it("holds the rest of a chunk while paused, even when paused from inside onLine", () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(
      16,
      (line) => {
        lines.push(line);
        splitter.pause();
      },
      () => {},
    );
    splitter.push(Buffer.from("one\ntwo\nthr"));
    assert.deepEqual(lines, ["one"]);
    assert.equal(splitter.bufferedBytes, "two\nthr".length);
    splitter.push(Buffer.from("ee\n"));
    assert.deepEqual(lines, ["one"], "a paused splitter delivers nothing, whatever arrives");
    splitter.resume();
    assert.deepEqual(lines, ["one", "two"]);
    splitter.resume();
    assert.deepEqual(lines, ["one", "two", "three"]);
    assert.equal(splitter.bufferedBytes, 0);
  });

  it("keeps order when resumed from inside onLine", () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(
      16,
      (line) => {
        lines.push(line);
        splitter.pause();
        splitter.resume();
      },
      () => {},
    );
    splitter.push(Buffer.from("a\nb\nc\n"));
    assert.deepEqual(lines, ["a", "b", "c"]);
  });

  it("clear() drops what it holds", () => {
    const { splitter, lines } = collect();
    splitter.pause();
    splitter.push(Buffer.from("x\npartial"));
    splitter.clear();
    splitter.resume();
    assert.deepEqual(lines, []);
    assert.equal(splitter.bufferedBytes, 0);
  });
});
