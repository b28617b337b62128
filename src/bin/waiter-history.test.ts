/** waiter's history file: where it lives, what it never keeps, its permissions, and forgetting. */
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { forgetInHistory, forgetQuery, loadHistory, resolveHistoryPath, saveHistory } from "./waiter-history.js";

const mode = (path: string) => statSync(path).mode & 0o777;

describe("waiter history", () => {
  it("lives in the data dir of the daemon waiter talks to", () => {
    assert.equal(resolveHistoryPath(undefined, { HOMEAGENT_DATA: "/data" }), "/data/waiter_history");
    assert.equal(resolveHistoryPath(undefined, {}), join(homedir(), ".homeagent", "waiter_history"));
    assert.equal(resolveHistoryPath("/d2/cli.sock", { HOMEAGENT_DATA: "/data" }), "/d2/waiter_history");
    assert.equal(resolveHistoryPath(undefined, { HOMEAGENT_SOCKET: "/d3/cli.sock" }), "/d3/waiter_history");
    // A socket that is not a data dir's cli.sock says nothing about the data dir.
    assert.equal(resolveHistoryPath("/run/homed.sock", { HOMEAGENT_DATA: "/data" }), "/data/waiter_history");
  });

  it("keeps no /auth, /settings set or /memory forget line, in the file or when loading an old one", () => {
    const file = join(tempDir("ha-history-"), "waiter_history");
    saveHistory(file, ["/memory forget --yes pineapple", "/memory  forget pineapple", "/auth k3y", "hello"]);
    assert.equal(readFileSync(file, "utf8"), "hello\n");
    writeFileSync(file, "/memory forget --yes old secret\nhi\n");
    assert.deepEqual(loadHistory(file), ["hi"]);
  });

  it("is 0600 in a 0700 folder, also when the file was left wider", () => {
    const dir = join(tempDir("ha-history-"), "data");
    const file = join(dir, "waiter_history");
    saveHistory(file, ["hello"]);
    assert.equal(mode(dir), 0o700);
    assert.equal(mode(file), 0o600);
    chmodSync(file, 0o644);
    saveHistory(file, ["hello", "again"]);
    assert.equal(mode(file), 0o600);
  });

  it("forgetting drops every line holding the query, case-insensitively, from the file and from memory", () => {
    const file = join(tempDir("ha-history-"), "waiter_history");
    const entries = ["/memory forget --yes PineApple", "my card pin is pineapple-42", "我的密码是 菠萝", "hello"];
    saveHistory(file, entries);
    forgetInHistory(file, "PineApple", entries);
    assert.deepEqual(entries, ["我的密码是 菠萝", "hello"]);
    assert.equal(readFileSync(file, "utf8"), "hello\n我的密码是 菠萝\n");
    forgetInHistory(file, "菠萝");
    assert.equal(readFileSync(file, "utf8"), "hello\n");
  });

  it("forgetting without a history file creates none", () => {
    const dir = join(tempDir("ha-history-"), "absent");
    forgetInHistory(join(dir, "waiter_history"), "x");
    assert.equal(existsSync(dir), false);
  });

  it("only a confirmed forget names a query", () => {
    assert.equal(forgetQuery("/memory forget --yes  my secret "), "my secret");
    assert.equal(forgetQuery("/memory   forget --yes 菠萝"), "菠萝");
    assert.equal(forgetQuery("/memory forget my secret"), undefined);
    assert.equal(forgetQuery("/memory forget --yes"), undefined);
    assert.equal(forgetQuery("please /memory forget --yes x"), undefined);
  });
});
