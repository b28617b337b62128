/**
 * `/approvals`: what the user was asked and answered, the "always" answers standing, and revoking one;
 * `/inbox`: the messages kept for the cli channel while no waiter was connected, printed and removed.
 */
import type { FinalFrame } from "@homeagent/cli-protocol";
import type { PluginSDK } from "@homeagent/sdk";
import { CLI_CHANNEL, INBOX_BATCH } from "./cli-channel.js";

export const APPROVALS_HELP = [
  '/approvals                    approvals waiting, "always" answers standing, the last ones asked',
  '/approvals revoke <id>        forget an "always" answer: that request is asked again',
  "/inbox                        print and remove the messages kept while no waiter was connected",
  "/stop                         stop the message being answered (its tools, an approval it waits for)",
];

const RECENT = 20;

export function approvalsCommand(sdk: PluginSDK, args: string): FinalFrame {
  const revoke = /^revoke\s+(\S+)$/.exec(args.trim());
  if (revoke) {
    return sdk.approvals.revoke(revoke[1])
      ? { type: "response", content: `revoked ${revoke[1]}: that request will be asked again` }
      : { type: "error", error: `no standing approval ${revoke[1]}: /approvals lists them` };
  }
  if (args.trim() !== "") return { type: "error", error: "usage: /approvals or /approvals revoke <id>" };
  const when = (t: number) => new Date(t).toLocaleString();
  const pending = sdk.approvals.pending().map((p) => `  ${p.id}  ${p.plugin}: ${p.question}`);
  const standing = sdk.approvals
    .remembered()
    .map((r) => `  ${r.id}  ${r.plugin}: ${r.question} (since ${when(r.createdAt)}, used ${r.uses}×)`);
  const recent = sdk.approvals
    .log(RECENT)
    .map((r) => `  ${when(r.askedAt)}  ${r.outcome}${r.by ? ` by ${r.by}` : ""}  ${r.plugin}: ${r.question}`);
  const section = (title: string, lines: string[]) => [title, ...(lines.length > 0 ? lines : ["  (none)"])];
  return {
    type: "response",
    content: [
      ...section("waiting:", pending),
      ...section('"always" (revoke with /approvals revoke <id>):', standing),
      ...section(`last ${RECENT} asked:`, recent),
    ].join("\n"),
  };
}

export function inboxCommand(sdk: PluginSDK): FinalFrame {
  const kept = sdk.inbox.take(CLI_CHANNEL, INBOX_BATCH);
  if (kept.length === 0) return { type: "response", content: "the inbox is empty" };
  const lines = kept.map((m) => `[${new Date(m.createdAt).toLocaleString()}] ${m.text}`);
  const more = sdk.inbox.count(CLI_CHANNEL);
  if (more > 0) lines.push(`(${more} more: /inbox again)`);
  return { type: "response", content: lines.join("\n") };
}
