/** The `<data>/waiter_history` file: appending, trimming, purging, and that it stays private throughout. */
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import {
  appendHistoryLine,
  forgetInHistoryFile,
  HISTORY_FILE_NAME,
  HISTORY_MAX,
  historyFile,
  trimHistoryFile,
} from "./input-history.js";

const mode = (path: string) => statSync(path).mode & 0o777;

describe("input history file", () => {
  it("is waiter_history in the data dir", () => {
    assert.equal(HISTORY_FILE_NAME, "waiter_history");
    assert.equal(historyFile("/data"), "/data/waiter_history");
  });

  it("appends line by line, 0600 in a 0700 folder, and keeps no /auth, /settings set or /memory forget line, indented or not", () => {
    const dir = join(tempDir("ha-input-history-"), "data");
    const file = historyFile(dir);
    const secret = ["/memory forget --yes pineapple", "/memory  forget pineapple", "/auth k3y", "  /auth k3y"];
    for (const line of ["hello", ...secret, " /settings set core.llm.sources.a.api_key sk-1", "bye"]) {
      appendHistoryLine(file, line);
    }
    assert.equal(readFileSync(file, "utf8"), "hello\nbye\n");
    assert.equal(mode(dir), 0o700);
    assert.equal(mode(file), 0o600);
    chmodSync(file, 0o644);
    appendHistoryLine(file, "again");
    assert.equal(mode(file), 0o600, "a file left wider is narrowed");
  });

  it("appending leaves what was purged meanwhile purged", () => {
    const file = historyFile(tempDir("ha-input-history-"));
    appendHistoryLine(file, "my pin is 4711");
    appendHistoryLine(file, "hello");
    forgetInHistoryFile(file, ["4711"], true);
    appendHistoryLine(file, "later");
    assert.equal(readFileSync(file, "utf8"), "hello\nlater\n");
  });

  it("appending refuses a symlink put in the file's place", () => {
    const dir = tempDir("ha-input-history-");
    const elsewhere = join(dir, "elsewhere");
    writeFileSync(elsewhere, "");
    symlinkSync(elsewhere, historyFile(dir));
    assert.throws(() => appendHistoryLine(historyFile(dir), "hello"), { code: "ELOOP" });
    assert.equal(readFileSync(elsewhere, "utf8"), "");
  });

  it("trimming keeps the newest HISTORY_MAX distinct lines, no secret one, in a private file", () => {
    const file = historyFile(tempDir("ha-input-history-"));
    const lines = Array.from({ length: HISTORY_MAX + 2 }, (_, i) => `line ${i}`);
    writeFileSync(file, `/auth k3y\nline 9\n${lines.join("\n")}\nline 7\n/settings set x y\n`);
    chmodSync(file, 0o644);
    const kept = trimHistoryFile(file);
    // line 7 and line 9 each keep their newest place only; the oldest distinct lines (0, 1) fall off.
    const expected = [...lines.slice(2).filter((l) => l !== "line 7"), "line 7"];
    assert.equal(kept.length, HISTORY_MAX);
    assert.deepEqual(kept, expected);
    assert.equal(readFileSync(file, "utf8"), `${expected.join("\n")}\n`);
    assert.equal(mode(file), 0o600);
  });

  it("trimming a missing file creates none", () => {
    const dir = join(tempDir("ha-input-history-"), "absent");
    assert.deepEqual(trimHistoryFile(historyFile(dir)), []);
    assert.equal(existsSync(dir), false);
  });

  it("forgetting counts the lines that mention every term, case-insensitively, and removes them only when asked", () => {
    const file = historyFile(tempDir("ha-input-history-"));
    const text = "My PIN is PineApple-42\npineapple juice\nmy pin changed\n我的密码是 菠萝\nhello\n";
    writeFileSync(file, text);
    chmodSync(file, 0o644);
    assert.equal(forgetInHistoryFile(file, ["my pin", "pineapple"], false), 1);
    assert.equal(forgetInHistoryFile(file, ["pin"], false), 3);
    assert.equal(readFileSync(file, "utf8"), text, "counting alone removes nothing");
    assert.equal(forgetInHistoryFile(file, ["pineapple"], true), 2);
    assert.equal(readFileSync(file, "utf8"), "my pin changed\n我的密码是 菠萝\nhello\n");
    assert.equal(mode(file), 0o600);
    assert.equal(forgetInHistoryFile(file, ["菠萝"], true), 1);
    writeFileSync(file, "my pin changed\nhello\nfull-width ＰＩＮＥＡＰＰＬＥ\n");
    assert.equal(forgetInHistoryFile(file, ["pineapple"], true), 1, "matched as every other forget matches");
    assert.equal(forgetInHistoryFile(file, [], true), 0, "no terms match nothing");
    assert.equal(readFileSync(file, "utf8"), "my pin changed\nhello\n");
  });

  it("forgetting without a file counts 0 and creates none", () => {
    const dir = join(tempDir("ha-input-history-"), "absent");
    assert.equal(forgetInHistoryFile(historyFile(dir), ["x"], true), 0);
    assert.equal(existsSync(dir), false);
  });
});
