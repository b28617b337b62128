/**
 * The cli socket's bounds against misbehaving clients: ones that never authenticate, open too many
 * connections, never read their replies, pipeline without end, or vanish mid-answer.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { createMockSDK, type MockResponder, type MockSDK } from "@homeagent/sdk/test";
import { RawCliClient } from "../../../test/fixtures/cli-client.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { authTimeoutText, idleEvictedText, tooManyConnectionsText } from "./limits.js";
import { type CliPlugin, type CliPluginOptions, createCliPlugin } from "./plugin.js";

const MiB = 1024 * 1024;
const BIG_REPLY = "x".repeat(10 * MiB);

interface Setup {
  sdk: MockSDK;
  plugin: CliPlugin;
  path: string;
  open(opts?: { reading?: boolean }): Promise<RawCliClient>;
}

const running: Array<{ plugin: CliPlugin; clients: RawCliClient[] }> = [];

async function setup(
  opts: CliPluginOptions = {},
  sdkOpts: { respond?: MockResponder; apiKey?: string } = {},
): Promise<Setup> {
  const dir = tempDir("hacli-limits-");
  const sdk = createMockSDK({ pluginName: "cli", daemonDataDir: dir, ...sdkOpts });
  const plugin = createCliPlugin(opts);
  await plugin.start(sdk);
  const clients: RawCliClient[] = [];
  running.push({ plugin, clients });
  const path = cliSocketPath(dir);
  return {
    sdk,
    plugin,
    path,
    open: async (o) => {
      const client = await RawCliClient.open(path, o);
      clients.push(client);
      return client;
    },
  };
}

afterEach(async () => {
  for (const { plugin, clients } of running.splice(0)) {
    for (const c of clients) c.destroy();
    await plugin.stop();
  }
});

/** A few turns of the event loop: enough for anything already due to have happened. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await nextTurn();
}

/** A reply the test releases by hand, and the signal the plugin passed with the message. */
function heldReplies() {
  const held: Array<(reply: string) => void> = [];
  const respond: MockResponder = () => new Promise<string>((resolve) => held.push(resolve));
  return { held, respond };
}

describe("cli limits: connections (defect 17)", () => {
  it("closes a connection that has not authenticated in time, with the reason", async () => {
    const { sdk, plugin, open } = await setup({ authTimeoutMs: 150 }, { apiKey: "k3y" });
    const authed = await open();
    authed.send("/auth k3y\n");
    assert.deepEqual(await authed.waitForFinals(1), [{ type: "response", content: "authenticated" }]);

    const silent = await open();
    const slowLoris = await open();
    slowLoris.send("/au");
    await silent.waitForClose();
    await slowLoris.waitForClose();
    assert.deepEqual(silent.frames, [{ type: "error", error: authTimeoutText(150) }]);
    assert.deepEqual(slowLoris.frames, [{ type: "error", error: authTimeoutText(150) }]);
    assert.match(authTimeoutText(10_000), /not authenticated within 10 s: send "\/auth <key>"/);

    // The authenticated connection, older than the timeout by now, is still served.
    authed.send("hi\n");
    assert.deepEqual((await authed.waitForFinals(2))[1], { type: "response", content: "hi" });
    assert.equal(authed.closed, false);
    await waitFor(() => plugin.stats().connections.length === 1, "the timed-out connections to be released");
    assert.equal(sdk.inputs.length, 1);
  });

  it("refuses a connection beyond the cap with an error frame, and takes one again when a slot frees", async () => {
    const { plugin, open } = await setup({ maxConnections: 3 });
    const first = await Promise.all([open(), open(), open()]);
    await waitFor(() => plugin.stats().connections.length === 3, "three connections");

    const extra = await open();
    await extra.waitForClose();
    assert.deepEqual(extra.frames, [{ type: "error", error: tooManyConnectionsText(3) }]);
    assert.match(tooManyConnectionsText(64), /too many connections to homed \(max 64\)/);
    assert.equal(plugin.stats().connections.length, 3);

    first[0].destroy();
    await waitFor(() => plugin.stats().connections.length === 2, "a slot to free");
    const later = await open();
    later.send("hello\n");
    assert.deepEqual(await later.waitForFinals(1), [{ type: "response", content: "hello" }]);
  });
});

describe("cli limits: backpressure and release (defect 3)", () => {
  it("stops reading a client that does not take its replies, and holds one reply at most", async () => {
    const unsentWhenAsked: number[] = [];
    let plugin: CliPlugin | undefined;
    const respond: MockResponder = () => {
      unsentWhenAsked.push(plugin?.stats().connections[0]?.unsentBytes ?? -1);
      return BIG_REPLY;
    };
    const s = await setup({}, { respond });
    plugin = s.plugin;
    const client = await s.open({ reading: false });
    client.send(Array.from({ length: 20 }, (_, i) => `big ${i}\n`).join(""));

    await waitFor(
      () => s.sdk.inputs.length === 1 && s.plugin.stats().connections[0]?.readingPaused,
      "the server to pause the connection after the first reply",
    );
    await settle();
    assert.equal(s.sdk.inputs.length, 1, "no later line is answered while the client does not read");
    const held = s.plugin.stats().connections[0];
    assert.ok(held.unsentBytes <= BIG_REPLY.length + 64, `unsent ${held.unsentBytes} bytes`);
    assert.ok(held.pendingLines <= 19);

    client.startReading();
    await client.waitForFinals(20, 60_000);
    assert.deepEqual(
      client.finals().map((f) => f.type),
      Array(20).fill("response"),
    );
    assert.equal(s.sdk.inputs.length, 20);
    // Each next line was taken only once the previous reply had been read.
    assert.ok(Math.max(...unsentWhenAsked) < MiB, `unsent when the next line started: ${unsentWhenAsked}`);
  });

  it("pauses reading when a connection's queue is full, and answers every line in order later", async () => {
    const { held, respond } = heldReplies();
    const { sdk, plugin, open } = await setup({ maxPendingLines: 2 }, { respond });
    const client = await open();
    client.send(Array.from({ length: 10 }, (_, i) => `m${i}\n`).join(""));

    await waitFor(() => plugin.stats().connections[0]?.readingPaused, "reading to pause");
    await settle();
    const stats = plugin.stats().connections[0];
    assert.equal(stats.pendingLines, 2, "the queue holds no more than its cap");
    assert.ok(stats.bufferedInputBytes > 0, "the rest waits unsplit");
    assert.equal(sdk.inputs.length, 1);

    for (let i = 0; i < 10; i++) {
      await waitFor(() => held.length === i + 1, `message ${i} to reach the agent`);
      held[i](`r${i}`);
    }
    const finals = await client.waitForFinals(10);
    assert.deepEqual(
      finals.map((f) => f.content),
      Array.from({ length: 10 }, (_, i) => `r${i}`),
    );
  });

  it("disconnects a client that lets more than maxUnsentBytes of progress frames pile up", async () => {
    let release = (): void => {};
    const respond: MockResponder = async ({ requestId }, sdk) => {
      const chunk = "y".repeat(256 * 1024);
      for (let i = 0; i < 40; i++) {
        sdk.emit("content_delta", { requestId, content: chunk });
        await nextTurn();
      }
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return "done";
    };
    const { sdk, plugin, open } = await setup({ maxUnsentBytes: MiB }, { respond });
    const client = await open({ reading: false });
    client.send("stream\n");

    await waitFor(() => plugin.stats().connections.length === 0, "the server to drop the client", {
      timeoutMs: 10_000,
    });
    assert.ok(sdk.inputs[0].opts?.signal?.aborted, "its message is cancelled");
    assert.ok(sdk.logs.some((l) => l.level === "warn" && /bytes of replies unread \(max 1048576\)/.test(l.msg)));
    assert.equal(plugin.stats().watchers, 0);
    release();
  });

  it("releases everything of a client that goes away, even while the agent never answers it", async () => {
    const { held, respond } = heldReplies();
    const { sdk, plugin, open } = await setup({}, { respond });
    const client = await open();
    client.send(`hang\n${"queued\n".repeat(5)}partial line with no end`);
    await waitFor(
      () => held.length === 1 && plugin.stats().watchers === 1 && plugin.stats().connections[0]?.pendingLines === 5,
      "the first message to run with five queued behind it",
    );
    client.destroy();
    await waitFor(() => plugin.stats().connections.length === 0, "the connection to be released");
    assert.deepEqual(plugin.stats(), { connections: [], watchers: 0 });
    assert.equal(sdk.inputs[0].opts?.signal?.aborted, true);
    assert.equal(sdk.inputs.length, 1, "queued lines of a gone client never reach the agent");
  });
});

describe("cli limits: a client that half-closes after sending", () => {
  it("gets an answer to every line it sent, the last one unterminated included, then the server ends", async () => {
    const { sdk, plugin, open } = await setup({}, { apiKey: "k3y" });
    const client = await open();
    client.end("/auth k3y\nhello there\n/status\nlast words");
    await client.waitForClose();
    assert.deepEqual(
      client.finals().map((f) => [f.type, f.content]),
      [
        ["response", "authenticated"],
        ["response", "hello there"],
        ["response", client.finals()[2]?.content],
        ["response", "last words"],
      ],
    );
    assert.ok(client.finals()[2]?.status, "/status is answered in its place");
    assert.deepEqual(
      sdk.inputs.map((i) => i.text),
      ["hello there", "last words"],
    );
    await waitFor(() => plugin.stats().connections.length === 0, "the connection to be released");
  });

  it("keeps the queue and connection bounds while it answers a half-closed client", async () => {
    const { held, respond } = heldReplies();
    const { plugin, open } = await setup({ maxPendingLines: 2, maxConnections: 1, idleEvictAfterMs: 0 }, { respond });
    const client = await open();
    client.end(Array.from({ length: 10 }, (_, i) => `m${i}\n`).join(""));
    await waitFor(() => held.length === 1 && plugin.stats().connections[0]?.readingPaused, "reading to pause");
    await settle();
    assert.equal(plugin.stats().connections[0].pendingLines, 2, "the queue holds no more than its cap");

    const refused = await open();
    await refused.waitForClose();
    assert.deepEqual(refused.frames, [{ type: "error", error: tooManyConnectionsText(1) }], "it still holds its slot");

    for (let i = 0; i < 10; i++) {
      await waitFor(() => held.length === i + 1, `message ${i} to reach the agent`);
      held[i](`r${i}`);
    }
    await client.waitForClose();
    assert.deepEqual(
      client.finals().map((f) => f.content),
      Array.from({ length: 10 }, (_, i) => `r${i}`),
    );
  });

  it("cancels what a half-closed client asked for once it goes away entirely", async () => {
    const { held, respond } = heldReplies();
    const { sdk, plugin, open } = await setup({ peerCheckMs: 20 }, { respond });
    const client = await open();
    client.end("hang\nqueued\n");
    await waitFor(
      () => held.length === 1 && plugin.stats().connections[0]?.pendingLines === 1,
      "one running, one queued",
    );
    await settle();
    assert.equal(sdk.inputs[0].opts?.signal?.aborted, false, "a half-close alone cancels nothing");

    client.destroy();
    await waitFor(() => plugin.stats().connections.length === 0, "the connection to be released");
    assert.equal(sdk.inputs[0].opts?.signal?.aborted, true);
    assert.equal(sdk.inputs.length, 1, "its queued line never reaches the agent");
    assert.deepEqual(plugin.stats(), { connections: [], watchers: 0 });
  });
});

describe("cli limits: idle connections at the cap", () => {
  it("closes the connection idle the longest, with a notice, to make room for a new one", async () => {
    let release = (_reply: string): void => {};
    const respond: MockResponder = ({ text }) =>
      text === "hang" ? new Promise<string>((resolve) => (release = resolve)) : text;
    const { sdk, plugin, open } = await setup({ maxConnections: 3, idleEvictAfterMs: 0 }, { respond });
    const [busy, stale, recent] = [await open(), await open(), await open()];
    await waitFor(() => plugin.stats().connections.length === 3, "three connections");
    busy.send("hang\n");
    await waitFor(() => sdk.inputs.length === 1, "the busy connection's message to run");
    stale.send("/help\n");
    await stale.waitForFinals(1);
    recent.send("/help\n");
    await recent.waitForFinals(1);

    // The busy one was active longest ago, but it waits for an answer: the stale one goes instead.
    const newcomer = await open();
    await stale.waitForClose();
    assert.deepEqual(stale.finals().slice(1), [{ type: "error", error: idleEvictedText(3) }]);
    assert.match(idleEvictedText(64), /idle the longest of 64 connections/);
    newcomer.send("hello\n");
    assert.deepEqual(await newcomer.waitForFinals(1), [{ type: "response", content: "hello" }]);
    assert.ok(sdk.logs.some((l) => /closed the cli connection idle the longest/.test(l.msg)));

    release("done");
    assert.deepEqual((await busy.waitForFinals(1))[0], { type: "response", content: "done" });
    assert.equal(busy.closed || recent.closed || newcomer.closed, false);
  });
});
