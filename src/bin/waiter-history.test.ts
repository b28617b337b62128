/** waiter's history: where it lives, readline's list from the file, and which lines forget what. */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { HISTORY_MAX } from "../daemon/input-history.js";
import { forgetInHistory, forgetQuery, loadHistory, resolveHistoryPath } from "./waiter-history.js";

describe("waiter history", () => {
  it("lives in the data dir of the daemon waiter talks to", () => {
    assert.equal(resolveHistoryPath(undefined, { HOMEAGENT_DATA: "/data" }), "/data/waiter_history");
    assert.equal(resolveHistoryPath(undefined, {}), join(homedir(), ".homeagent", "waiter_history"));
    assert.equal(resolveHistoryPath("/d2/cli.sock", { HOMEAGENT_DATA: "/data" }), "/d2/waiter_history");
    assert.equal(resolveHistoryPath(undefined, { HOMEAGENT_SOCKET: "/d3/cli.sock" }), "/d3/waiter_history");
    // A socket that is not a data dir's cli.sock says nothing about the data dir.
    assert.equal(resolveHistoryPath("/run/homed.sock", { HOMEAGENT_DATA: "/data" }), "/data/waiter_history");
  });

  it("loads newest first, and trims the file to HISTORY_MAX lines as it loads it", () => {
    const file = join(tempDir("ha-history-"), "waiter_history");
    const lines = Array.from({ length: HISTORY_MAX + 5 }, (_, i) => `line ${i}`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    const entries = loadHistory(file);
    assert.equal(entries.length, HISTORY_MAX);
    assert.equal(entries[0], `line ${HISTORY_MAX + 4}`);
    assert.equal(entries.at(-1), "line 5");
    assert.equal(readFileSync(file, "utf8"), `${lines.slice(5).join("\n")}\n`);
  });

  it("forgetting drops every line holding the query, case-insensitively, from the file and from memory", () => {
    const file = join(tempDir("ha-history-"), "waiter_history");
    writeFileSync(file, "hello\nmy card pin is pineapple-42\n我的密码是 菠萝\n");
    const entries = ["/memory forget --yes PineApple", "my card pin is pineapple-42", "我的密码是 菠萝", "hello"];
    forgetInHistory(file, "PineApple", entries);
    assert.deepEqual(entries, ["我的密码是 菠萝", "hello"]);
    assert.equal(readFileSync(file, "utf8"), "hello\n我的密码是 菠萝\n");
    forgetInHistory(file, "菠萝");
    assert.equal(readFileSync(file, "utf8"), "hello\n");
  });

  it("forgetting without a history file creates none", () => {
    const dir = join(tempDir("ha-history-"), "absent");
    forgetInHistory(join(dir, "waiter_history"), "x", ["x"]);
    assert.equal(existsSync(dir), false);
  });

  it("only a confirmed forget names a query, its flags read as the cli plugin reads them", () => {
    assert.equal(forgetQuery("/memory forget --yes  my secret "), "my secret");
    assert.equal(forgetQuery("/memory   forget --yes 菠萝"), "菠萝");
    assert.equal(forgetQuery("/memory forget --yes --knowledge q"), "q");
    assert.equal(forgetQuery("/memory forget --knowledge --yes q"), "q");
    assert.equal(forgetQuery("/memory forget --knowledge --yes 我的密码"), "我的密码");
    assert.equal(forgetQuery("/memory forget --yesterday's notes"), undefined, "a preview");
    assert.equal(forgetQuery("/memory forget --yes --yesterday's notes"), "--yesterday's notes");
    assert.equal(forgetQuery("/memory forget --knowledge q"), undefined);
    assert.equal(forgetQuery("/memory forget my secret"), undefined);
    assert.equal(forgetQuery("/memory forget --yes"), undefined);
    assert.equal(forgetQuery("/memory forget --yes --knowledge"), undefined);
    assert.equal(forgetQuery("/memory forgetful --yes x"), undefined);
    assert.equal(forgetQuery("please /memory forget --yes x"), undefined);
  });
});
