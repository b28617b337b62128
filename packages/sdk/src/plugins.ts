/**
 * What the daemon reports about its plugins and how they are managed: the same facts serve `/plugins`,
 * the status page and any plugin granted `plugin_mgr`, so all three show one picture.
 */

/** "builtin": shipped in homed; "js": a plugin.js run by the daemon's node; "bin": a plugin.bin executable. */
export type PluginKind = "builtin" | "js" | "bin";

/**
 * "restarting": it crashed and is about to be started again. "unhealthy": it crashed too often (3 times in
 * 5 minutes) and stays stopped until reloaded by hand. "failed": it could not be loaded or started; the
 * reason is in `lastError`.
 */
export type PluginState = "starting" | "running" | "failed" | "disabled" | "stopped" | "restarting" | "unhealthy";

export interface PluginInfo {
  name: string;
  kind: PluginKind;
  state: PluginState;
  /**
   * "degraded": it runs, but a stage handler of it failed (timed out, errored) 3 of its last 5 runs, so all
   * its stage handlers are skipped (a critical plugin's refuse) until it restarts or is reloaded; `healthReason`
   * says which and why. "unhealthy": state "unhealthy" (`lastError` says why).
   */
  health: "ok" | "degraded" | "unhealthy";
  /** Why it is degraded, and what brings it back; only with health "degraded". */
  healthReason?: string;
  /** What it was granted; `core` is implied. */
  capabilities: string[];
  /** While it is not running, the stages it registered refuse instead of letting the turn through. */
  critical: boolean;
  /** Crashes within the last 5 minutes. */
  crashes: number;
  /** Automatic restarts since it was last started by hand. */
  restarts: number;
  lastError?: string;
  /** The process id of an external plugin that is running. */
  pid?: number;
  /** When it last started (Unix ms), while it is running. */
  startedAt?: number;
  version?: string;
  description?: string;
}

/** What `reload` did, by plugin name. */
export interface ReloadReport {
  /** Their entry file changed (or they were not running): stopped and started again. */
  reloaded: string[];
  /** Running, and their entry file is the same: left running. */
  unchanged: string[];
  /** New plugin directories, started. */
  added: string[];
  /** Their directory is gone: stopped. */
  removed: string[];
  failed: Array<{ name: string; error: string }>;
}

/** Capability `plugin_mgr`. Changes take effect at once; enable and disable are remembered across restarts. */
export interface PluginMgrAPI {
  list(): PluginInfo[];
  enable(name: string): Promise<void>;
  /** Stops the plugin and detaches everything it registered; a plugin cannot disable itself. */
  disable(name: string): Promise<void>;
  /**
   * External plugins only (built-ins are not hot-reloaded): `name`, or every plugin directory when omitted.
   * A plugin whose entry file is unchanged and that is running is left alone; crash counts are reset.
   */
  reload(name?: string): Promise<ReloadReport>;
  /**
   * Stops a plugin and starts it again, changed on disk or not: an external plugin in a new process, with
   * its crash count reset. Refused (code `plugin_disabled`) for a disabled plugin; a plugin cannot restart
   * itself (`plugin_self_restart`).
   */
  restart(name: string): Promise<void>;
}
