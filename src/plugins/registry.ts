/**
 * PluginRegistry: starts the built-in plugin factories (external kinds join later) with one PluginSDK
 * each, confined to the capabilities the factory declares. A plugin that fails to start, speaks another
 * API version or does not finish starting in time is detached (its SDK revoked) and reported; it never
 * takes the daemon down or holds up its start.
 */
import { type Capability, type Logger, PLUGIN_API_VERSION, type Plugin } from "@homeagent/sdk";
import { requirePluginName } from "../config/plugin-settings.js";
import type { ConfigRegistry } from "../config/registry.js";
import { KERNEL_OWNER } from "../kernel/tools.js";
import { errorMessage } from "../util/errors.js";
import { withinTime } from "../util/time-limit.js";
import { checkDeclared } from "./capabilities.js";
import { PluginApiVersionError, PluginNameError, PluginTimeoutError } from "./errors.js";
import { createPluginSDK, type PluginBinding, type PluginHost } from "./sdk-impl.js";

export interface PluginFactory {
  name: string;
  /** What the plugin may do beyond `core` (always granted); see CAPABILITIES in the SDK. */
  capabilities: readonly Capability[];
  /** Set only for plugins shipped in src/builtins: they may also call the built-in-only members (publish). */
  builtin?: boolean;
  create(): Plugin;
}

export interface RegistryOptions {
  /** How long one plugin's start() may take before it is marked failed; default 10 s. */
  startTimeoutMs?: number;
  /** How long one plugin's stop() may take before it is detached anyway; default 5 s. */
  stopTimeoutMs?: number;
}

export type PluginState = "running" | "failed" | "disabled" | "stopped";

interface Entry {
  name: string;
  state: PluginState;
  error?: string;
  plugin?: Plugin;
  binding?: PluginBinding;
}

export class PluginRegistry {
  private readonly entries: Entry[] = [];
  private readonly startTimeoutMs: number;
  private readonly stopTimeoutMs: number;

  constructor(
    private readonly host: PluginHost,
    private readonly config: ConfigRegistry,
    private readonly log: Logger,
    opts: RegistryOptions = {},
  ) {
    this.startTimeoutMs = opts.startTimeoutMs ?? 10_000;
    this.stopTimeoutMs = opts.stopTimeoutMs ?? 5_000;
  }

  /** One after the other, in the given order; each start is bounded, so the whole is too. */
  async startAll(factories: PluginFactory[]): Promise<void> {
    for (const factory of factories) await this.start(factory);
  }

  async stopAll(): Promise<void> {
    for (const entry of [...this.entries].reverse()) {
      if (entry.state !== "running") continue;
      await this.callStop(entry);
      entry.binding?.detach();
      entry.state = "stopped";
    }
  }

  states(): Array<{ name: string; state: string; error?: string }> {
    return this.entries.map(({ name, state, error }) => ({ name, state, ...(error ? { error } : {}) }));
  }

  private async start(factory: PluginFactory): Promise<void> {
    const entry: Entry = { name: factory.name, state: "stopped" };
    this.entries.push(entry);
    if (this.config.isPluginDisabled(factory.name)) {
      entry.state = "disabled";
      this.log.info(`plugin "${factory.name}" is disabled; not started`);
      return;
    }
    try {
      checkName(factory.name);
      // Tools, stages, settings and files are keyed by plugin name: a second plugin of one name would share
      // them, and its failure would detach the first one's registrations.
      if (this.entries.some((e) => e !== entry && e.name === factory.name)) {
        throw new PluginNameError(factory.name, "is already taken by another plugin", "plugin_name_taken");
      }
      checkDeclared(factory.name, factory.capabilities);
      const plugin = factory.create();
      if (plugin.apiVersion !== PLUGIN_API_VERSION) {
        throw new PluginApiVersionError(factory.name, plugin.apiVersion, PLUGIN_API_VERSION);
      }
      entry.plugin = plugin;
      entry.binding = createPluginSDK(factory.name, this.host, {
        capabilities: factory.capabilities,
        builtin: factory.builtin === true,
      });
      const sdk = entry.binding.sdk;
      await withinTime(
        Promise.resolve().then(() => plugin.start(sdk)),
        this.startTimeoutMs,
        () => new PluginTimeoutError(factory.name, "start", this.startTimeoutMs),
        ({ error }) =>
          this.log.warn(
            `plugin "${factory.name}" ${error === undefined ? "finished starting" : `failed (${errorMessage(error)})`} after its start timeout; it stays failed`,
          ),
      );
      entry.state = "running";
      this.log.info(`plugin "${factory.name}" started`);
    } catch (err) {
      await this.fail(entry, err);
    }
  }

  /**
   * Revokes first, so nothing the failed start left running can act through the SDK; then lets the plugin
   * release whatever it acquired before failing.
   */
  private async fail(entry: Entry, err: unknown): Promise<void> {
    entry.binding?.detach();
    entry.state = "failed";
    entry.error = errorMessage(err);
    this.log.error(`plugin "${entry.name}" failed to start: ${entry.error}`);
    this.host.agent.bus.publish("system", "kernel", { kind: "plugin_failed", plugin: entry.name, error: entry.error });
    await this.callStop(entry);
  }

  private async callStop(entry: Entry): Promise<void> {
    const plugin = entry.plugin;
    if (!plugin) return;
    try {
      await withinTime(
        Promise.resolve().then(() => plugin.stop()),
        this.stopTimeoutMs,
        () => new PluginTimeoutError(entry.name, "stop", this.stopTimeoutMs),
      );
    } catch (err) {
      this.log.warn(`plugin "${entry.name}" failed to stop cleanly: ${errorMessage(err)}`);
    }
  }
}

/** Plugin names key settings and own tools; "kernel" owns the daemon's own tools, so no plugin may take it. */
function checkName(name: string): void {
  requirePluginName(name);
  if (name === KERNEL_OWNER) throw new PluginNameError(name, "is reserved for the daemon's own tools");
}
