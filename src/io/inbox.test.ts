/**
 * The inbox keeps what a channel was sent while nobody was connected: bounded per channel in count and age,
 * read = removed, forgettable; and the output channels put a message there when their handler reports
 * "no_client", for unprompted sends, the model's output_send tools and turn replies alike.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { SdkError } from "@homeagent/sdk";
import Database from "better-sqlite3";
import { type TestPluginHost, testPluginHost } from "../../test/fixtures/plugin-host.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { createPluginSDK } from "../plugins/sdk-impl.js";
import { HomeAgentError } from "../util/errors.js";
import { DAY } from "../util/time-units.js";
import { INBOX_MAX_PER_CHANNEL, Inbox } from "./inbox.js";

test("bounded to the newest 500 per channel and 30 days; take removes what it returns", () => {
  const db = new Database(":memory:");
  let now = 1_000 * DAY;
  const inbox = new Inbox(db, () => now);
  for (let i = 0; i < INBOX_MAX_PER_CHANNEL + 20; i++) inbox.put("cli", "reminder", `note ${i}`);
  inbox.put("webui", "result", "other channel");
  assert.equal(inbox.count("cli"), INBOX_MAX_PER_CHANNEL);
  assert.equal(inbox.peek("cli", 1)[0].text, "note 20", "the oldest made room");
  assert.deepEqual(
    inbox.take("cli", 2).map((m) => m.text),
    ["note 20", "note 21"],
  );
  assert.equal(inbox.count("cli"), INBOX_MAX_PER_CHANNEL - 2);
  const [first] = inbox.peek("cli", 1);
  assert.equal(inbox.remove("webui", [first.id]), 0, "an id of another channel is not removed");
  assert.equal(inbox.remove("cli", [first.id]), 1);
  now += 30 * DAY + 1;
  assert.equal(inbox.count("cli"), 0, "older than 30 days is gone");
  assert.equal(inbox.count("webui"), 0);
  inbox.put("cli", "reply", "y".repeat(16_005));
  assert.equal(inbox.peek("cli")[0].text, `${"y".repeat(16_000)}… [5 more characters not kept]`, "cut, not lost");
  assert.throws(
    () =>
      inbox.remove(
        "cli",
        Array.from({ length: 501 }, (_, i) => i),
      ),
    (err: unknown) => err instanceof HomeAgentError && err.code === "invalid_argument",
  );
  db.close();
});

test("5,000 messages at most over every channel, and what is 30 days old goes as new ones come", () => {
  const db = new Database(":memory:");
  let now = 1_000 * DAY;
  const inbox = new Inbox(db, () => now);
  inbox.put("old", "x", "from a plugin long gone");
  now += 30 * DAY + 1;
  inbox.put("cli", "x", "new");
  assert.equal((db.prepare("SELECT count(*) AS n FROM inbox").get() as { n: number }).n, 1, "expired on put");
  for (let i = 0; i < 11; i++) for (let j = 0; j < 500; j++) inbox.put(`channel-${i}`, "x", `${i}/${j}`);
  assert.equal((db.prepare("SELECT count(*) AS n FROM inbox").get() as { n: number }).n, 5_000);
  db.close();
});

test("forget counts and removes the messages that mention every term, in any case and width", () => {
  const db = new Database(":memory:");
  const inbox = new Inbox(db);
  inbox.put("cli", "reminder", "⏰ call the bank about PIN 4711");
  inbox.put("cli", "reminder", "⏰ stretch");
  inbox.put("webui", "reminder", "ＰＩＮ 4711 again");
  assert.equal(inbox.forget(["pin 4711"], false), 2);
  assert.equal(inbox.count("cli"), 2);
  assert.equal(inbox.forget(["pin 4711"], true), 2);
  assert.deepEqual(
    inbox.peek("cli").map((m) => m.text),
    ["⏰ stretch"],
  );
  assert.equal(inbox.count("webui"), 0);
  db.close();
});

let t: TestPluginHost | undefined;
afterEach(() => t?.close());

test("a channel with nobody connected keeps unprompted sends, the model's sends and replies in its inbox", async () => {
  t = testPluginHost();
  const client = createPluginSDK("cli", t.host, { capabilities: ["io"], builtin: true }).sdk;
  let connected = false;
  const shown: string[] = [];
  client.registerOutputChannel("cli", ["text"], "the terminal", (msg) => {
    if (!connected) throw new SdkError({ code: "no_client", message: "no waiter is connected" });
    shown.push(msg.payload);
    return "shown in 1 waiter";
  });
  assert.deepEqual(await client.send("cli", "⏰ stretch", { kind: "reminder" }), {
    delivered: false,
    kept: true,
    channel: "cli",
  });
  t.harness.llm.enqueue(
    { toolCalls: [{ name: "output_send__cli", arguments: { payload: "from the model" } }] },
    { text: "the reply" },
  );
  // Not a sync caller's turn: its reply goes to the channel (a sync caller gets its reply itself).
  t.harness.agent.injectInput("timer", "cli", "follow up", { noMemory: true });
  await waitFor(() => client.inbox.count("cli") === 3, "the reply in the inbox");
  const tool = t.harness.llm.requests[1].messages.find((m) => m.role === "tool");
  assert.match(String(tool?.content), /kept in its inbox/);
  assert.deepEqual(
    client.inbox.take("cli").map((m) => [m.kind, m.text]),
    [
      ["reminder", "⏰ stretch"],
      ["message", "from the model"],
      ["reply", "the reply"],
    ],
  );
  connected = true;
  assert.deepEqual(await client.send("cli", "now live"), {
    delivered: true,
    detail: "shown in 1 waiter",
    channel: "cli",
  });
  assert.deepEqual(shown, ["now live"]);
  assert.equal(client.inbox.count("cli"), 0);
  await assert.rejects(client.send("nowhere", "x"), (err: unknown) => (err as SdkError).code === "channel_not_found");
  assert.deepEqual(
    await client.send("nowhere", "a result whose channel has gone", { fallback: true }),
    { delivered: true, detail: "shown in 1 waiter", channel: "cli" },
    "with fallback, a channel that is gone hands it on (webui is not there, cli is)",
  );
  connected = false;
  assert.deepEqual(
    await client.send("cli", "kept, not handed on", { fallback: true }),
    { delivered: false, kept: true, channel: "cli" },
    "a channel that is there keeps its own message",
  );
  const other = createPluginSDK("other", t.host, { capabilities: ["io"], builtin: false }).sdk;
  assert.throws(
    () => other.inbox.take("cli"),
    (err: unknown) => (err as SdkError).code === "channel_not_found",
    "a plugin reads only its own channels' inbox",
  );
});
