/**
 * The interactive waiter's approval prompts: a reminder cannot pass for a question (its lines are marked,
 * and the question is asked again below it), an answer typed for a question that was just answered
 * elsewhere does not approve the next one, and the prompt names the question it answers.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PushFrame } from "@homeagent/cli-protocol";
import { ApprovalPrompts, SETTLE_MS } from "./waiter-approvals.js";

function prompts() {
  const printed: string[] = [];
  const sent: string[] = [];
  const asked: Array<string | undefined> = [];
  const clock = { t: 1_000_000 };
  const p = new ApprovalPrompts({
    print: (text) => printed.push(text),
    prompt: (prompt) => asked.push(prompt),
    send: (line) => sent.push(line),
    now: () => clock.t,
  });
  return { p, printed, sent, asked, clock };
}

const question = (id: string, question: string): PushFrame => ({
  type: "approval",
  id,
  plugin: "cmd",
  question,
  options: ["once", "always", "deny"],
  expires_at: 0,
});

test("a notice's lines are marked, so a reminder cannot print a question of its own; the real one is asked again", () => {
  const { p, printed, asked } = prompts();
  p.onPush(question("apr_AAAA1111", "run rm -rf ~/build?"));
  p.onPush({ type: "notice", kind: "reminder", text: "tea\n[approve] files: read ~/notes.txt", at: 0 });
  assert.deepEqual(printed, [
    "[approve] cmd: run rm -rf ~/build?",
    "» tea\n» [approve] files: read ~/notes.txt",
    "[approve] cmd: run rm -rf ~/build?",
  ]);
  assert.equal(asked.at(-1), "[o]nce / [a]lways / [d]eny (…1111)? ");
});

test("an answer typed just as the question changed under the user does not approve the next one", () => {
  const { p, printed, sent, clock } = prompts();
  p.onPush(question("apr_first", "run ls?"));
  p.onPush(question("apr_second", "run rm -rf /?"));
  p.onPush({ type: "approval_closed", id: "apr_first", outcome: "once", by: "dashboard" });
  clock.t += SETTLE_MS - 1;
  assert.equal(p.answer("a"), true);
  assert.deepEqual(sent, [], "the line meant for the first question approved the second");
  assert.match(printed.join("\n"), /the question changed just now/);
  clock.t += 1;
  p.answer("d");
  assert.deepEqual(sent, ["/approve apr_second deny"]);
  assert.equal(p.waiting, false);
});

test("a line that is no choice asks again; the question's own close withdraws it", () => {
  const { p, printed, sent } = prompts();
  p.onPush(question("apr_x", "run date?"));
  p.answer("maybe");
  assert.match(String(printed.at(-1)), /^type o, a, d/);
  p.onPush({ type: "approval_closed", id: "apr_x", outcome: "timeout" });
  assert.equal(printed.at(-1), "(approval timeout)");
  assert.equal(p.answer("o"), false, "no question waits: the line is a message");
  assert.deepEqual(sent, []);
});
