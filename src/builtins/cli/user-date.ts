/**
 * Dates as the terminal prints them: `YYYY-MM-DD HH:MM:SS` in the user's zone (core.agent.timezone, the
 * one the prompt uses), or the system's when it is unset or unknown.
 */
import type { PluginSDK } from "@homeagent/sdk";

export type DateFormat = (ms: number) => string;

/** The user's zone (`core.agent.timezone`), as the prompt uses it; the system's when unset or unknown. */
function userZone(sdk: PluginSDK): string | undefined {
  const zone = sdk.config.list("core.agent.timezone").find((e) => e.key === "core.agent.timezone")?.value;
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
}

/** `YYYY-MM-DD HH:MM:SS` in `zone` (sv-SE writes dates in that order). */
function dateIn(zone: string | undefined): DateFormat {
  const f = new Intl.DateTimeFormat("sv-SE", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });
  return (ms) => f.format(ms);
}

/** The date format of the user's zone. */
export function userDate(sdk: PluginSDK): DateFormat {
  return dateIn(userZone(sdk));
}
