/**
 * `/plugins …` over the cli socket: what each plugin is and how it is doing (kind, state, health,
 * capabilities, crashes, the last error), and enabling, disabling, reloading and restarting them while
 * homed runs.
 */
import type { FinalFrame } from "@homeagent/cli-protocol";
import type { PluginInfo, PluginSDK, ReloadReport } from "@homeagent/sdk";

export const PLUGINS_HELP = [
  "/plugins                      plugins: kind, state, health, capabilities, crashes, last error",
  "/plugins enable <name>        start a plugin and keep it enabled",
  "/plugins disable <name>       stop a plugin and keep it disabled",
  "/plugins reload [name]        start again what changed under plugins/ (all when no name)",
  "/plugins restart <name>       stop a plugin and start it again, changed or not",
];

export async function pluginsCommand(sdk: PluginSDK, args: string): Promise<FinalFrame> {
  const [, sub = "", rest = ""] = /^(\S*)\s*(.*)$/s.exec(args.trim()) ?? [];
  const name = rest.trim();
  switch (sub) {
    case "":
    case "list":
      return response(formatPlugins(sdk.pluginMgr.list()));
    case "enable":
      if (!isName(name)) return usage("/plugins enable <name>");
      await sdk.pluginMgr.enable(name);
      return response(`plugin ${name} enabled (${stateOf(sdk, name)})`);
    case "disable":
      if (!isName(name)) return usage("/plugins disable <name>");
      await sdk.pluginMgr.disable(name);
      return response(`plugin ${name} disabled`);
    case "restart": {
      if (!isName(name)) return usage("/plugins restart <name>");
      await sdk.pluginMgr.restart(name);
      const pid = sdk.pluginMgr.list().find((p) => p.name === name)?.pid;
      return response(`plugin ${name} restarted (${stateOf(sdk, name)}${pid === undefined ? "" : `, pid ${pid}`})`);
    }
    case "reload":
      if (name !== "" && !isName(name)) return usage("/plugins reload [name]");
      return response(formatReload(await sdk.pluginMgr.reload(name || undefined)));
    default:
      return usage(PLUGINS_HELP.join("\n"));
  }
}

export function formatPlugins(plugins: PluginInfo[]): string {
  if (plugins.length === 0) return "no plugins";
  return plugins
    .map((p) => {
      const head = [
        p.state,
        `health ${p.health}`,
        `crashes ${p.crashes}`,
        p.restarts > 0 ? `restarts ${p.restarts}` : "",
        p.pid !== undefined ? `pid ${p.pid}` : "",
        p.critical ? "critical" : "",
      ].filter(Boolean);
      const lines = [
        `${p.name} [${p.kind}${p.version ? ` ${p.version}` : ""}]: ${head.join(", ")}`,
        `  capabilities: ${p.capabilities.join(", ")}`,
      ];
      if (p.healthReason) lines.push(`  ${p.health}: ${p.healthReason}`);
      if (p.lastError) lines.push(`  last error: ${p.lastError}`);
      return lines.join("\n");
    })
    .join("\n");
}

function formatReload(r: ReloadReport): string {
  const parts = [
    ["reloaded", r.reloaded],
    ["added", r.added],
    ["removed", r.removed],
    ["unchanged", r.unchanged],
  ] as const;
  const lines = parts.filter(([, names]) => names.length > 0).map(([what, names]) => `${what}: ${names.join(", ")}`);
  for (const f of r.failed) lines.push(`failed: ${f.name}: ${f.error}`);
  return lines.length > 0 ? lines.join("\n") : "no external plugins";
}

function stateOf(sdk: PluginSDK, name: string): string {
  return sdk.pluginMgr.list().find((p) => p.name === name)?.state ?? "unknown";
}

/** Plugin names have no spaces: anything more is a typo, not a name. */
function isName(text: string): boolean {
  return /^\S+$/.test(text);
}

function usage(text: string): FinalFrame {
  return { type: "error", error: `usage: ${text}` };
}

function response(content: string): FinalFrame {
  return { type: "response", content };
}
