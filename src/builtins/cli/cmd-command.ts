/** `/cmd history`: the last commands the agent ran or was refused, from the cmd plugin's own list. */
import type { FinalFrame } from "@homeagent/cli-protocol";
import type { PluginSDK } from "@homeagent/sdk";

export const CMD_HELP = ["/cmd history                  the last 100 commands the agent ran or was refused"];

interface CommandEntry {
  id: number;
  command: string;
  startedAt: number;
  status: string;
  exitCode?: number | null;
  durationMs?: number;
  allowedBy?: string;
}

/** `/cmd history`: the cmd plugin's own list (its tool, run for the user). */
export async function cmdCommand(sdk: PluginSDK, args: string): Promise<FinalFrame> {
  if (args.trim() !== "history") return { type: "error", error: "usage: /cmd history" };
  const entries = JSON.parse(await sdk.runTool("cmd_history")) as CommandEntry[];
  if (entries.length === 0) return { type: "response", content: "no command has run yet" };
  const lines = entries.map((e) => {
    const how = e.status === "ok" ? `exit ${e.exitCode}, ${e.durationMs} ms` : e.status;
    return `${new Date(e.startedAt).toLocaleString()}  ${how}  ${e.command}${e.allowedBy ? `  (${e.allowedBy})` : ""}`;
  });
  return { type: "response", content: lines.join("\n") };
}
