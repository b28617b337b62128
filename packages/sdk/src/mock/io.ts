/**
 * The mock SDK's unprompted delivery, inbox and approvals: `send` records every message (and calls the
 * plugin's own channel handler when the channel is its own, keeping the message in an in-memory inbox when
 * that handler reports "no_client"); `ask` records the question and answers with the test's `approve`
 * (default: nobody is connected). The approvals API of the built-in clients answers from the same list.
 */

import { SdkError } from "../errors.js";
import type { ApprovalOutcome, InboxMessage, OutputHandler, PluginSDK, ToolHandler } from "../index.js";
import type { MockSDKOptions, MockSent } from "./types.js";

interface MockIoState {
  channels: ReadonlyMap<string, { handler: OutputHandler }>;
  tools: ReadonlyMap<string, { handler: ToolHandler }>;
  sent: MockSent[];
  asked: Parameters<PluginSDK["ask"]>[0][];
}

export function mockIo(
  opts: MockSDKOptions,
  state: MockIoState,
): Pick<PluginSDK, "send" | "ask" | "approvals" | "inbox" | "runTool" | "selfTask"> {
  const inbox: InboxMessage[] = [];
  let nextId = 0;
  const own = (channel: string): string => {
    if (state.channels.has(channel)) return channel;
    throw new SdkError({ code: "channel_not_found", message: `the plugin has no output channel "${channel}"` });
  };
  return {
    send: async (channel, text, sendOpts) => {
      const kind = sendOpts?.kind ?? "notice";
      const targets = sendOpts?.fallback ? [channel, ...["webui", "cli"].filter((c) => c !== channel)] : [channel];
      let failure: unknown;
      for (const target of targets) {
        state.sent.push({ channel: target, text, kind });
        const handler = state.channels.get(target)?.handler;
        if (!handler) return { delivered: true, detail: `sent to ${target}`, channel: target };
        try {
          const out = await handler({ payload: text, meta: { kind }, type: "text", requestId: "" });
          return { delivered: true, detail: String(out ?? `sent to ${target}`), channel: target };
        } catch (err) {
          if ((err as { code?: unknown }).code !== "no_client") {
            failure = err;
            if ((err as { code?: unknown }).code === "channel_not_found") continue;
            break;
          }
          inbox.push({ id: ++nextId, channel: target, kind, text, createdAt: Date.now() });
          return { delivered: false, kept: true, channel: target };
        }
      }
      throw failure;
    },
    runTool: async (name, args = {}) => {
      const tool = state.tools.get(name);
      if (!tool)
        throw new SdkError({ code: "not_found", message: `no tool "${name}" (the mock runs the plugin's own)` });
      const signal = new AbortController().signal;
      const out = await tool.handler(args, { requestId: "user", source: "user", channel: "user", signal });
      return typeof out === "string" ? out : JSON.stringify(out);
    },
    selfTask: async (text, taskOpts) => {
      if (!opts.selfTask)
        throw new SdkError({ code: "unavailable", message: "the mock runs no self-task (give selfTask)" });
      return opts.selfTask(text, taskOpts);
    },
    ask: async (request): Promise<ApprovalOutcome> => {
      state.asked.push(request);
      return opts.approve ? opts.approve(request) : { approved: false, reason: "no_client" };
    },
    approvals: {
      pending: () => [],
      answer: (id) => {
        throw new SdkError({ code: "not_found", message: `no approval "${id}" is waiting` });
      },
      remembered: () => [],
      revoke: () => false,
      log: () => [],
      setClients: (channel) => void own(channel),
    },
    inbox: {
      count: (channel) => inbox.filter((m) => m.channel === own(channel)).length,
      peek: (channel, limit = 500) => inbox.filter((m) => m.channel === own(channel)).slice(0, limit),
      take: (channel, limit = 500) => {
        const taken = inbox.filter((m) => m.channel === own(channel)).slice(0, limit);
        for (const m of taken) inbox.splice(inbox.indexOf(m), 1);
        return taken;
      },
      remove: (channel, ids) => {
        const gone = inbox.filter((m) => m.channel === own(channel) && ids.includes(m.id));
        for (const m of gone) inbox.splice(inbox.indexOf(m), 1);
        return gone.length;
      },
    },
  };
}
