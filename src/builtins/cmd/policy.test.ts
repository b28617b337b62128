/**
 * Splitting a command line without a shell, and the policy on it: the default patterns let harmless forms
 * run at once, while a path argument, an option that reads a file (`date -f`) or changes the system
 * (`date -s`), or a program outside the fixed PATH needs the user's approval — or is refused — with the
 * setting that would allow it named.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_ALLOW, decide, isPathLike, parsePatterns } from "./policy.js";
import { splitCommand } from "./split.js";

test("a command line splits as a shell would quote it, and shell syntax is refused, not passed on", () => {
  assert.deepEqual(splitCommand(`grep -r "two words" 'it''s' a\\ b`), ["grep", "-r", "two words", "its", "a b"]);
  assert.deepEqual(splitCommand(`echo "a \\"q\\" \\\\ b" '|'`), ["echo", 'a "q" \\ b', "|"]);
  assert.deepEqual(splitCommand(`date +%s# "#"`), ["date", "+%s#", "#"]);
  for (const [line, why] of [
    ["ls | wc -l", /shell operator/],
    ["cat a > b", /shell operator/],
    ["true && rm x", /shell operator/],
    ["echo $HOME", /needs a shell/],
    ["echo `id`", /needs a shell/],
    ['echo "open', /unclosed double quote/],
    ["uname # -a", /starts a comment/],
    ["uname\nrm -rf x", /one line/],
    ["   ", /empty/],
  ] as const) {
    assert.throws(() => splitCommand(line), why, line);
  }
});

const patterns = parsePatterns(DEFAULT_ALLOW.join("\n"));
const verdict = (line: string, inPath = true, mode: "ask" | "allowlist" | "any" | "off" = "ask") =>
  decide(mode, patterns, splitCommand(line), inPath);

test("the default patterns run the harmless forms at once", () => {
  for (const line of ["uname", "uname -a", "uptime", "whoami", "pwd", "df -h", "free -h", "date", "date +%Y-%m-%d"]) {
    assert.equal(verdict(line).run, true, line);
  }
});

test("a file-reading or system-changing option, a path argument, or a program outside the fixed PATH asks first", () => {
  for (const [line, why] of [
    ["date -f /home/me/.homeagent/credentials", /path/],
    ["date -f credentials", /matches no pattern/],
    ["date -s 2020-01-01", /matches no pattern/],
    ["date +%s -s 2020", /matches no pattern/],
    ["date +/etc/passwd", /path/],
    ["uname -a ~/x", /path/],
    ["ls /", /path/],
    ["hostname evil", /matches no pattern/],
  ] as const) {
    const v = verdict(line);
    assert.equal(v.run, false, line);
    assert.equal(!v.run && v.ask, true, line);
    assert.match(v.why, why, line);
  }
  const outside = verdict("uname -a", false);
  assert.equal(outside.run, false);
  assert.match(outside.why, /not a program in \/usr\/local\/bin, \/usr\/bin or \/bin/);
});

test("allowlist refuses what no pattern allows and says how to allow it; any runs all; off none", () => {
  const refused = verdict("ls /", true, "allowlist");
  assert.equal(refused.run === false && refused.ask, false);
  assert.match(refused.why, /add a pattern to plugin.cmd.allow, or set the mode to ask/);
  assert.equal(verdict("uname -a", true, "allowlist").run, true);
  assert.equal(verdict("rm -rf ~", false, "any").run, true);
  const off = verdict("uname", true, "off");
  assert.equal(off.run === false && off.ask, false);
  assert.match(off.why, /plugin.cmd.mode = off/);
});

test("an allow line that does not split allows nothing and stops nothing else", () => {
  assert.deepEqual(parsePatterns('uname\necho "open\nwhoami'), [["uname"], ["whoami"]]);
});

test("what counts as a path", () => {
  for (const p of ["/etc", "a/b", "~", "~/x", ".", "..", ".ssh", "--file=/x"]) assert.equal(isPathLike(p), true, p);
  for (const p of ["-a", "+%Y", "notes", "2020-01-01"]) assert.equal(isPathLike(p), false, p);
});

test("a NUL is refused, and a * does not match an option the pattern does not name", () => {
  assert.throws(() => splitCommand("date +%s\u0000"), /NUL/);
  const own = parsePatterns("date *");
  assert.equal(decide("ask", own, ["date", "-s12:00"], true).run, false);
  assert.equal(decide("ask", own, ["date", "--set=12:00"], true).run, false);
  assert.equal(decide("ask", own, ["date", "+%s"], true).run, true);
});
