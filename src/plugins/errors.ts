/**
 * The errors a plugin meets from the daemon: a refused SDK call, a stopped plugin's SDK, a plugin that
 * cannot be started. Each has a stable `code` so tests, logs and the status page can tell them apart.
 */
import { CAPABILITIES, type Capability } from "@homeagent/sdk";
import { HomeAgentError } from "../util/errors.js";

/** Every SDK call of a plugin after it stopped or failed to start, including from work it left running. */
export class PluginStoppedError extends HomeAgentError {
  constructor(readonly plugin: string) {
    super({
      code: "plugin_stopped",
      message: `plugin "${plugin}" is stopped: its SDK no longer works (stop timers and other work in stop())`,
    });
  }
}

export class CapabilityDeniedError extends HomeAgentError {
  constructor(
    readonly plugin: string,
    /** The SDK member called (capabilities.ts SdkMember). */
    readonly member: string,
    readonly capability: Capability,
    builtinOnly = false,
  ) {
    super({
      code: "capability_denied",
      message: builtinOnly
        ? `plugin "${plugin}" may not call ${member}: only built-in plugins may (capability "${capability}" is not enough)`
        : `plugin "${plugin}" may not call ${member}: it needs the "${capability}" capability; declare it in the plugin's capabilities`,
    });
  }
}

export class UnknownCapabilityError extends HomeAgentError {
  constructor(plugin: string, names: string[]) {
    super({
      code: "capability_unknown",
      message: `plugin "${plugin}" declares unknown capabilities ${names.map((n) => `"${n}"`).join(", ")}; known: ${CAPABILITIES.join(", ")}`,
    });
  }
}

export class PluginApiVersionError extends HomeAgentError {
  constructor(plugin: string, theirs: unknown, ours: number) {
    super({
      code: "plugin_api_version",
      message: `plugin "${plugin}" was written for plugin API version ${String(theirs)}, but this homed speaks version ${ours}; rebuild the plugin against @homeagent/sdk with PLUGIN_API_VERSION ${ours}`,
    });
  }
}

/** A start() or stop() that did not settle in time; the plugin is treated as failed (or stopped) anyway. */
export class PluginTimeoutError extends HomeAgentError {
  constructor(plugin: string, phase: "start" | "stop", ms: number) {
    super({
      code: `plugin_${phase}_timeout`,
      message: `plugin "${plugin}" did not finish ${phase === "start" ? "starting" : "stopping"} within ${ms} ms; it was ${phase === "start" ? "marked failed" : "detached anyway"} and its SDK revoked`,
    });
  }
}

/** A plugin whose name cannot be used: the owner name of the kernel's own tools, or one already taken. */
export class PluginNameError extends HomeAgentError {
  constructor(
    plugin: string,
    why: string,
    code: "plugin_name_reserved" | "plugin_name_taken" = "plugin_name_reserved",
  ) {
    super({ code, message: `plugin name ${JSON.stringify(plugin)} ${why}; rename the plugin` });
  }
}

/** A plugin directory that cannot be loaded: its plugin.json or its entry file is missing or wrong. */
export class PluginLoadError extends HomeAgentError {
  constructor(dir: string, problem: string, cause?: unknown) {
    super({ code: "plugin_load", message: `plugin directory ${dir}: ${problem}`, cause });
  }
}

/** A management call naming a plugin the registry does not know, or asking what its kind cannot do. */
export class PluginMgrError extends HomeAgentError {
  constructor(code: "plugin_not_found" | "plugin_not_reloadable" | "plugin_disabled", message: string) {
    super({ code, message });
  }
}

/** A plugin over one of its registration limits (limits.ts): too many tools, too large a schema, … */
export class PluginLimitError extends HomeAgentError {
  constructor(plugin: string, problem: string, cause?: unknown) {
    super({ code: "plugin_limit", message: `plugin "${plugin}" is refused: ${problem}`, cause });
  }
}

/** A plugin's onForget handler that did not answer in time, or answered something that is no report. */
export class ForgetHandlerError extends HomeAgentError {}
