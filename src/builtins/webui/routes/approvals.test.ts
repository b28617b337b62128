/**
 * Approvals, the inbox and timers over HTTP against a real daemon: a question a plugin's tool asks is listed
 * (escaped), refused to a client that holds only the API key, and answered by a logged-in dashboard whose
 * event stream is open; "always" is listed and revoked only by the dashboard; what the webui channel is sent
 * while no dashboard is open waits in the inbox until it is read; timers are listed and cancelled.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { askerPlugin } from "../../../../test/fixtures/asker.js";
import { waitFor } from "../../../../test/fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../../../../test/fixtures/webui.js";

let w: WebDaemon;
let session: { cookie: string; csrf: string };
before(async () => {
  w = await startWebDaemon({ plugins: [askerPlugin] });
  session = await w.login();
});
after(() => w.stop());

/** A dashboard's event stream, open until closed: while it is, the user can be asked. */
async function openDashboard(): Promise<() => Promise<void>> {
  const controller = new AbortController();
  const res = await fetch(`${w.base}/api/v1/chat/events`, {
    headers: { cookie: session.cookie },
    signal: controller.signal,
  });
  // Counted once the answer is out: the hub registers the stream before it answers.
  assert.equal(res.status, 200);
  return async () => {
    controller.abort();
    await res.body?.cancel().catch(() => {});
    await waitFor(
      async () => (await w.json("GET", "/api/v1/runtime")).body.sse.dashboards === 0,
      "the dashboard's stream to close",
    );
  };
}

const asUser = (method: string, path: string, body?: unknown) =>
  fetch(w.base + path, {
    method,
    headers: { cookie: session.cookie, "X-CSRF-Token": session.csrf, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

function lastToolResult(): string {
  const chats = w.llm.requests.filter((r) => r.method === "POST");
  const body = chats.at(-1)?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  return String((body?.messages ?? []).filter((m) => m.role === "tool").at(-1)?.content);
}

describe("approvals", () => {
  test("an API-key client may read a question but not answer it; the logged-in dashboard answers", async () => {
    const close = await openDashboard();
    try {
      w.llm.enqueue({ toolCalls: [{ name: "risky_op", arguments: { what: "format\u202e disk" } }] }, { text: "ok" });
      const chat = w.json("POST", "/api/v1/chat", { message: "go" });
      let pending: Array<{ id: string; question: string; plugin: string }> = [];
      await waitFor(async () => {
        pending = (await w.json("GET", "/api/v1/approvals")).body.pending;
        return pending.length === 1;
      }, "the question");
      assert.equal(pending[0].question, "may I format\\u{202e} disk?");
      assert.equal(pending[0].plugin, "asker");
      const byKey = await w.json("POST", `/api/v1/approvals/${pending[0].id}`, { choice: "once" });
      assert.equal(byKey.status, 403);
      assert.equal(byKey.body.error.code, "approval_refused");
      const bad = await asUser("POST", `/api/v1/approvals/${pending[0].id}`, { choice: "sure" });
      assert.equal(bad.status, 400);
      const answered = await asUser("POST", `/api/v1/approvals/${pending[0].id}`, { choice: "always" });
      assert.equal(answered.status, 200, await answered.clone().text());
      assert.equal((await chat).body.response, "ok");
      assert.equal(lastToolResult(), "did format\u202e disk (always)");
      const again = await asUser("POST", `/api/v1/approvals/${pending[0].id}`, { choice: "once" });
      assert.equal(again.status, 404, "an answered question is gone");
    } finally {
      await close();
    }
  });

  test("the standing 'always' is listed with the recent questions and revoked only by the dashboard", async () => {
    const listed = await w.json("GET", "/api/v1/approvals");
    const [always] = listed.body.remembered;
    assert.equal(always.question, "may I format\\u{202e} disk?");
    assert.equal(listed.body.recent[0].outcome, "always");
    assert.equal(listed.body.recent[0].by, "dashboard");
    assert.equal((await w.json("DELETE", `/api/v1/approvals/remembered/${always.id}`)).status, 403);
    assert.equal((await asUser("DELETE", `/api/v1/approvals/remembered/${always.id}`)).status, 200);
    assert.deepEqual((await w.json("GET", "/api/v1/approvals")).body.remembered, []);
  });

  test("with no dashboard open the question is refused at once", async () => {
    w.llm.enqueue({ toolCalls: [{ name: "risky_op", arguments: { what: "reboot" } }] }, { text: "fine" });
    await w.json("POST", "/api/v1/chat", { message: "reboot" });
    assert.equal(lastToolResult(), "did not reboot: no_client");
  });
});

describe("inbox and timers", () => {
  test("what the webui channel is sent with no dashboard open waits in the inbox until it is read", async () => {
    assert.deepEqual(await w.daemon.host.io.send("webui", "⏰ stretch", "reminder", false), {
      delivered: false,
      kept: true,
      channel: "webui",
    });
    const inbox = await w.json("GET", "/api/v1/inbox");
    assert.deepEqual(
      inbox.body.messages.map((m: { text: string; kind: string }) => [m.kind, m.text]),
      [["reminder", "⏰ stretch"]],
    );
    const read = await w.json("DELETE", "/api/v1/inbox", { ids: [inbox.body.messages[0].id] });
    assert.equal(read.body.removed, 1);
    assert.deepEqual((await w.json("GET", "/api/v1/inbox")).body.messages, []);
    assert.equal((await w.json("DELETE", "/api/v1/inbox", { ids: ["x"] })).status, 400);
  });

  test("forgetting removes kept messages, questions asked and standing answers that mention the text", async () => {
    await w.daemon.host.io.send("webui", "⏰ call the bank about card 4711", "reminder", false);
    const close = await openDashboard();
    try {
      w.llm.enqueue({ toolCalls: [{ name: "risky_op", arguments: { what: "pay card 4711" } }] }, { text: "paid" });
      const chat = w.json("POST", "/api/v1/chat", { message: "pay" });
      let id = "";
      await waitFor(async () => {
        id = (await w.json("GET", "/api/v1/approvals")).body.pending[0]?.id ?? "";
        return id !== "";
      }, "the question");
      await asUser("POST", `/api/v1/approvals/${id}`, { choice: "always" });
      await chat;
    } finally {
      await close();
    }
    const preview = await w.json("DELETE", "/api/v1/memory", { query: "card 4711" });
    assert.equal(preview.body.matched.inbox, 1);
    assert.equal(preview.body.matched.approvals, 2, "the question asked and the standing answer");
    const forgot = await w.json("DELETE", "/api/v1/memory", { query: "card 4711", confirm: true });
    assert.equal(forgot.body.removed.inbox, 1);
    assert.equal(forgot.body.removed.approvals, 2);
    assert.deepEqual((await w.json("GET", "/api/v1/inbox")).body.messages, []);
    const left = (await w.json("GET", "/api/v1/approvals")).body;
    assert.equal(JSON.stringify(left).includes("4711"), false, "the text is still in approvals");
  });

  test("timers set in the chat are listed and cancelled", async () => {
    w.llm.enqueue({ toolCalls: [{ name: "timer_set", arguments: { in: "1h", message: "tea" } }] }, { text: "set" });
    await w.json("POST", "/api/v1/chat", { message: "remind me in an hour about tea" });
    const { timers } = (await w.json("GET", "/api/v1/timers")).body;
    assert.equal(timers.length, 1);
    assert.equal(timers[0].message, "tea");
    assert.equal(timers[0].channel, "webui");
    assert.equal((await w.json("DELETE", `/api/v1/timers/${timers[0].id}`)).status, 200);
    assert.equal((await w.json("DELETE", `/api/v1/timers/${timers[0].id}`)).status, 404);
    assert.deepEqual((await w.json("GET", "/api/v1/timers")).body.timers, []);
  });
});
