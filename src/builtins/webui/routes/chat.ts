/**
 * The chat routes: a synchronous message (POST /api/v1/chat), the conversation so far as memory holds it
 * (GET chat/history), and interrupting the agent (POST chat/interrupt). Also the "webui" output channel,
 * through which the agent can speak to the browser on its own: what it sends there is published as an
 * `agent_output` event with `sent: true` (and its `kind`, e.g. "reminder"), which the SSE stream carries to
 * every open dashboard; with no dashboard open it reports "no_client", so the message waits in the inbox
 * (and the event, marked `kept`, is in the replay ring for a dashboard that was only cut off a moment).
 */
import { type PluginSDK, SdkError } from "@homeagent/sdk";
import type { Context } from "hono";
import { readJson } from "../body.js";
import {
  CHAT_CHANNEL,
  type ChatOutcome,
  chatRunner,
  chatSource,
  DEVICE_ID,
  MAX_CLIENT_MSG_ID,
  MAX_MESSAGE_BYTES,
} from "../chat-runner.js";
import { ApiError, type RouteGroup, type WebDeps } from "../context.js";
import { intQuery, optionalBoolean, optionalString, requiredText } from "../params.js";
import { sdkCall } from "../sdk-errors.js";

export const HISTORY_MAX = 200;
/** Unix ms far beyond any real date: the upper bound of `before`. */
const MAX_TIME_MS = 8_640_000_000_000_000;
/** LLM source names are at most 64 characters (config keys core.llm.sources.<name>.*). */
const MAX_SOURCE_NAME = 64;

export const chatRoutes: RouteGroup = (app, deps) => {
  const runner = chatRunner(deps);
  registerOutputChannel(deps);

  app.post("/api/v1/chat", async (c) => {
    const body = await readJson(c, deps.limits.maxJsonBytes);
    const text = requiredText(body, "message", MAX_MESSAGE_BYTES);
    const deviceId = optionalString(body, "device_id", 64, DEVICE_ID);
    const clientMsgId = optionalString(body, "client_msg_id", MAX_CLIENT_MSG_ID);
    const llmSource = optionalString(body, "llm_source", MAX_SOURCE_NAME);
    if (llmSource && !deps.sdk.llm.sources().some((s) => s.name === llmSource)) {
      throw new ApiError(400, "llm_unknown_source", `no LLM source named "${llmSource}"`);
    }
    const newTopic = optionalBoolean(body, "new_topic") === true;
    const replaces = optionalString(body, "replaces", MAX_CLIENT_MSG_ID);
    const outcome = await runner.chat({
      source: chatSource(deviceId),
      text,
      clientMsgId,
      signal: c.req.raw.signal,
      llmSource,
      newTopic,
      replaces,
    });
    return c.json(replyJson(outcome));
  });

  app.get("/api/v1/chat/history", async (c) => {
    const before = intQuery(c, "before", 0, MAX_TIME_MS);
    const limit = intQuery(c, "limit", 1, HISTORY_MAX, 50);
    const page = await sdkCall(() => deps.sdk.memory.history({ source: CHAT_CHANNEL, before, limit }));
    return c.json(page);
  });

  // With a message: the agent gets it at once (inside the running reply, or as a new input when idle).
  // Without one: the web UI's replies in flight are stopped.
  app.post("/api/v1/chat/interrupt", async (c) => {
    const body = await optionalJson(c, deps);
    const deviceId = optionalString(body, "device_id", 64, DEVICE_ID);
    if (body.message === undefined || body.message === null || body.message === "") {
      return c.json({ stopped: runner.stopAll() });
    }
    const text = requiredText(body, "message", MAX_MESSAGE_BYTES);
    await sdkCall(() => deps.sdk.injectInterrupt(chatSource(deviceId), CHAT_CHANNEL, text));
    return c.json({ interrupted: true });
  });

  return () => {
    runner.stopAll();
  };
};

/** The JSON answer of a chat: camelCase keys, optional fields only when present. */
export function replyJson(outcome: ChatOutcome): Record<string, unknown> {
  const { reply, deduplicated } = outcome;
  return {
    requestId: reply.requestId,
    response: reply.content,
    ...(reply.reasoningContent ? { reasoningContent: reply.reasoningContent } : {}),
    ...(reply.usage ? { usage: reply.usage } : {}),
    ...(deduplicated ? { deduplicated: true } : {}),
  };
}

/** A JSON body, or `{}` when the request has none (interrupt may be sent without one). */
async function optionalJson(c: Context, deps: WebDeps): Promise<Record<string, unknown>> {
  const length = c.req.header("content-length");
  const hasBody = (length !== undefined && length !== "0") || c.req.header("transfer-encoding") !== undefined;
  return hasBody ? readJson(c, deps.limits.maxJsonBytes) : {};
}

function registerOutputChannel(deps: WebDeps): void {
  const sdk: PluginSDK = deps.sdk;
  sdk.registerOutputChannel(
    CHAT_CHANNEL,
    ["text"],
    "the user's web dashboard (browser): the message is shown in its chat",
    (msg) => {
      const open = deps.sseStats().dashboards;
      // A turn's reply is on the bus already (the kernel's agent_output): publishing it again would show it twice.
      // Published also with no dashboard open: one cut off for a moment gets it on reconnect (the replay ring).
      if (!msg.reply) {
        sdk.publish("agent_output", {
          requestId: msg.requestId,
          source: CHAT_CHANNEL,
          channel: CHAT_CHANNEL,
          content: msg.payload,
          sent: true,
          ...(typeof msg.meta.kind === "string" ? { kind: msg.meta.kind } : {}),
          ...(open === 0 ? { kept: true } : {}),
        });
      }
      // Kept in the inbox for a dashboard opened later.
      if (open === 0) throw new SdkError({ code: "no_client", message: "no web dashboard is open" });
      return `shown in ${open} open web dashboard${open === 1 ? "" : "s"}`;
    },
    { types: ["text"] },
  );
}
