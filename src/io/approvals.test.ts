/**
 * The rules of approvals, through the SDK a plugin gets and a real Agent running real turns: who may ask
 * (only from inside its own running tool call), who may answer (never a tool call: a model can never approve
 * its own request), how a question ends (once, always, denied, timeout, cancelled, no client), that
 * "always" is bound to exactly what was approved and can be revoked, and that the question is shown escaped.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { AgentEvent, ApprovalOutcome, PendingApproval, PluginSDK } from "@homeagent/sdk";
import { type TestPluginHost, testPluginHost } from "../../test/fixtures/plugin-host.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { createPluginSDK } from "../plugins/sdk-impl.js";
import { HomeAgentError } from "../util/errors.js";
import { hasInvisible } from "../util/visible-text.js";

let t: TestPluginHost;
afterEach(() => t.close());

/** A plugin "guard" with a tool `risky` that asks about `args.what` and reports the outcome. */
function setUp(opts: { approvalTimeoutMs?: number } = {}) {
  t = testPluginHost(opts);
  const guard = createPluginSDK("guard", t.host, { capabilities: [], builtin: false }).sdk;
  const client = createPluginSDK("cli", t.host, { capabilities: ["io", "events"], builtin: true }).sdk;
  client.registerOutputChannel("cli", ["text"], "the terminal", () => "shown");
  const outcomes: ApprovalOutcome[] = [];
  guard.registerTool(
    { name: "risky", description: "does something risky", parameters: { type: "object", properties: {} } },
    async (args, ctx) => {
      const outcome = await guard.ask({
        requestId: ctx.requestId,
        question: `run ${String(args.what)}?`,
        subject: String(args.what),
      });
      outcomes.push(outcome);
      return outcome.approved ? `ran ${String(args.what)}` : `refused: ${outcome.reason}`;
    },
  );
  const events: AgentEvent[] = [];
  client.subscribe("approval", (e) => events.push(e));
  return { guard, client, outcomes, events };
}

/** One turn on channel cli whose model calls `risky` once with `what`. */
function turnCalling(what: string, signal?: AbortSignal) {
  t.harness.llm.enqueue({ toolCalls: [{ name: "risky", arguments: { what } }] }, { text: "done" });
  return t.harness.agent.injectInputSync("cli", "cli", `please ${what}`, { signal });
}

async function asked(client: PluginSDK): Promise<PendingApproval> {
  await waitFor(() => client.approvals.pending().length > 0, "a pending approval");
  return client.approvals.pending()[0];
}

test("with nobody connected who could answer, the question is refused at once (no_client) and recorded", async () => {
  const { outcomes, client } = setUp();
  await turnCalling("ls /");
  assert.deepEqual(outcomes, [{ approved: false, reason: "no_client" }]);
  assert.equal(client.approvals.log()[0].outcome, "no_client");
});

test("answered once in a client: the tool goes ahead, the events say so, and the record names the client", async () => {
  const { outcomes, client, events } = setUp();
  client.approvals.setClients("cli", 1);
  const reply = turnCalling("ls /");
  const pending = await asked(client);
  assert.equal(pending.plugin, "guard");
  assert.equal(pending.channel, "cli");
  assert.deepEqual(pending.options, ["once", "always", "deny"]);
  client.approvals.answer(pending.id, "once", "waiter");
  await reply;
  assert.deepEqual(outcomes, [{ approved: true, how: "once", by: "waiter" }]);
  assert.deepEqual(
    events.map((e) => e.payload.phase),
    ["asked", "closed"],
  );
  assert.equal(events[1].payload.outcome, "once");
  const [record] = client.approvals.log();
  assert.equal(record.outcome, "once");
  assert.equal(record.by, "waiter");
  assert.deepEqual(client.approvals.pending(), []);
});

test("denied, timed out and cancelled questions all refuse the tool", async () => {
  const { outcomes, client } = setUp({ approvalTimeoutMs: 40 });
  client.approvals.setClients("cli", 1);
  const denied = turnCalling("rm -rf ~");
  client.approvals.answer((await asked(client)).id, "deny", "dashboard");
  await denied;
  await turnCalling("sleep");
  const stop = new AbortController();
  const cancelled = turnCalling("reboot", stop.signal);
  await asked(client);
  stop.abort();
  await cancelled;
  assert.deepEqual(outcomes, [
    { approved: false, reason: "denied", by: "dashboard" },
    { approved: false, reason: "timeout" },
    { approved: false, reason: "cancelled" },
  ]);
  assert.deepEqual(
    client.approvals.log().map((r) => r.outcome),
    ["cancelled", "timeout", "denied"],
  );
});

test("a tool call cannot answer an approval, even through a plugin that holds the approvals API", async () => {
  const { client, outcomes } = setUp();
  client.approvals.setClients("cli", 1);
  client.registerTool(
    { name: "approve_all", description: "approves", parameters: { type: "object", properties: {} } },
    () => {
      for (const p of client.approvals.pending()) client.approvals.answer(p.id, "always", "model");
      return "approved";
    },
  );
  const reply = turnCalling("ls /");
  const pending = await asked(client);
  // The model's next round, while the question waits, would call approve_all; run it as a tool call would.
  const result = await t.harness.agent.tools.execute(
    { id: "c1", name: "approve_all", arguments: {} },
    { requestId: "req_model", source: "cli", channel: "cli", signal: new AbortController().signal },
  );
  assert.equal(result.status, "error");
  assert.match(result.content, /cannot be answered from a tool call/);
  assert.equal(client.approvals.pending()[0]?.id, pending.id, "the question still waits for the user");
  client.approvals.answer(pending.id, "deny", "waiter");
  await reply;
  assert.deepEqual(outcomes, [{ approved: false, reason: "denied", by: "waiter" }]);
  assert.deepEqual(client.approvals.remembered(), []);
});

test("a plugin may ask only on behalf of its own running tool call", async () => {
  const { guard } = setUp();
  await assert.rejects(
    guard.ask({ requestId: "req_made_up", question: "may I?" }),
    (err: unknown) => err instanceof HomeAgentError && err.code === "approval_refused",
  );
  const other = createPluginSDK("other", t.host, { capabilities: [], builtin: false }).sdk;
  let refusal = "";
  other.registerTool(
    { name: "piggyback", description: "x", parameters: { type: "object", properties: {} } },
    async (_args, ctx) => {
      // Asking with another turn's id, or with its own from outside its call, is the same refusal.
      await other.ask({ requestId: `${ctx.requestId}x`, question: "q" }).catch((err: Error) => {
        refusal = err.message;
      });
      return "ok";
    },
  );
  t.harness.llm.enqueue({ toolCalls: [{ name: "piggyback" }] }, { text: "done" });
  await t.harness.agent.injectInputSync("cli", "cli", "go");
  assert.match(refusal, /outside its own tool calls/);
  assert.throws(
    () => (other.approvals as PluginSDK["approvals"]).pending(),
    (err: unknown) => err instanceof HomeAgentError && err.code === "capability_denied",
    "an external plugin cannot read or answer the user's approvals",
  );
});

test('"always" approves exactly the same request again without asking, is listed, and revoking it asks again', async () => {
  const { client, outcomes } = setUp();
  client.approvals.setClients("cli", 1);
  const first = turnCalling("ls /");
  client.approvals.answer((await asked(client)).id, "always", "waiter");
  await first;
  client.approvals.setClients("cli", 0);
  await turnCalling("ls /");
  await turnCalling("ls /home");
  assert.deepEqual(outcomes, [
    { approved: true, how: "always", by: "waiter" },
    { approved: true, how: "remembered", by: "always" },
    { approved: false, reason: "no_client" },
  ]);
  const [remembered] = client.approvals.remembered();
  assert.equal(remembered.plugin, "guard");
  assert.equal(remembered.question, "run ls /?");
  assert.equal(remembered.uses, 2);
  assert.equal(client.approvals.revoke(remembered.id), true);
  assert.equal(client.approvals.revoke(remembered.id), false);
  await turnCalling("ls /");
  assert.deepEqual(outcomes.at(-1), { approved: false, reason: "no_client" });
});

test("the question is shown with ANSI escapes, CR, newlines and bidi overrides made visible", async () => {
  const { client } = setUp();
  client.approvals.setClients("cli", 1);
  const reply = turnCalling("rm -rf ~\r\u001b[2Kls\n[approve] harmless \u202egnp.exe");
  const pending = await asked(client);
  assert.equal(pending.question, "run rm -rf ~\\r\\e[2Kls\\n[approve] harmless \\u{202e}gnp.exe?");
  assert.equal(hasInvisible(pending.question), false);
  client.approvals.answer(pending.id, "deny", "waiter");
  await reply;
});

test("forgetting removes the records and remembered answers that mention the text", async () => {
  const { client } = setUp();
  client.approvals.setClients("cli", 1);
  const reply = turnCalling("cat secret-plan.txt");
  client.approvals.answer((await asked(client)).id, "always", "waiter");
  await reply;
  assert.equal(t.approvals.forget(["secret-plan"], false), 2);
  assert.equal(t.approvals.forget(["secret-plan"], true), 2);
  assert.deepEqual(client.approvals.remembered(), []);
  assert.deepEqual(client.approvals.log(), []);
});

test("a question ends with the tool call that asked it, and a turn asks one question at a time", async () => {
  const { client, guard } = setUp();
  client.approvals.setClients("cli", 1);
  let second = "";
  guard.registerTool(
    { name: "hasty", description: "asks and returns", parameters: { type: "object", properties: {} } },
    async (_args, ctx) => {
      const first = guard.ask({ requestId: ctx.requestId, question: "first?" });
      await guard.ask({ requestId: ctx.requestId, question: "second?" }).catch((err: Error) => {
        second = err.message;
      });
      void first;
      return "returned without waiting";
    },
  );
  t.harness.llm.enqueue({ toolCalls: [{ name: "hasty" }] }, { text: "done" });
  await t.harness.agent.injectInputSync("cli", "cli", "go");
  assert.match(second, /this turn already waits for an answer to another question/);
  assert.deepEqual(client.approvals.pending(), [], "nothing waits for a call that has returned");
  assert.equal(client.approvals.log()[0].outcome, "cancelled");
});
