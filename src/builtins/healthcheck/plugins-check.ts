/** Is each plugin running and healthy? A plugin that failed, crashed too often or is degraded fails. */
import type { PluginInfo } from "@homeagent/sdk";
import { type Check, fail, ok, warn } from "./check.js";

export function pluginChecks(plugins: readonly PluginInfo[]): Check[] {
  return plugins.map(pluginCheck);
}

function pluginCheck(p: PluginInfo): Check {
  const name = `plugin:${p.name}`;
  const why = p.lastError ? `: ${p.lastError}` : "";
  switch (p.state) {
    case "failed":
      return fail(name, `failed to load or start${why}`, `fix the cause, then /plugins restart ${p.name}`);
    case "unhealthy":
      return fail(
        name,
        `crashed ${p.crashes} times in 5 minutes and was not restarted${why}`,
        `see the daemon log, then /plugins restart ${p.name}`,
      );
    case "disabled":
      return ok(name, "disabled by the user");
    case "stopped":
      return warn(name, `stopped${why}`, `/plugins enable ${p.name}`);
    case "starting":
    case "restarting":
      return warn(name, `${p.state}${why}`, "check again in a moment");
  }
  if (p.health === "degraded") {
    return fail(
      name,
      `running, but degraded: ${p.healthReason ?? "its stage handlers failed"}`,
      `/plugins restart ${p.name} once the cause is fixed`,
    );
  }
  if (p.health === "unhealthy") return fail(name, `unhealthy${why}`, `/plugins restart ${p.name}`);
  const crashes = p.crashes > 0 ? `, ${p.crashes} crash(es) in the last 5 minutes` : "";
  return crashes ? warn(name, `running${crashes}${why}`, "see the daemon log") : ok(name, "running");
}
