/**
 * PluginRegistry: starts the built-in plugin factories (external kinds join later) with one PluginSDK
 * each. A plugin that fails to start is detached and reported; it never takes the daemon down.
 */
import type { Logger, Plugin } from "@homeagent/sdk";
import type { ConfigRegistry } from "../config/registry.js";
import { createPluginSDK, type PluginBinding, type PluginHost } from "./sdk-impl.js";

export interface PluginFactory {
  name: string;
  create(): Plugin;
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

  constructor(
    private readonly host: PluginHost,
    private readonly config: ConfigRegistry,
    private readonly log: Logger,
  ) {}

  async startAll(factories: PluginFactory[]): Promise<void> {
    for (const factory of factories) await this.start(factory);
  }

  async stopAll(): Promise<void> {
    for (const entry of [...this.entries].reverse()) {
      if (entry.state !== "running") continue;
      try {
        await entry.plugin?.stop();
      } catch (err) {
        this.log.warn(`plugin "${entry.name}" failed to stop cleanly: ${errText(err)}`);
      }
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
    const binding = createPluginSDK(factory.name, this.host);
    try {
      entry.plugin = factory.create();
      entry.binding = binding;
      await entry.plugin.start(binding.sdk);
      entry.state = "running";
      this.log.info(`plugin "${factory.name}" started`);
    } catch (err) {
      binding.detach();
      entry.state = "failed";
      entry.error = errText(err);
      this.log.error(`plugin "${factory.name}" failed to start: ${entry.error}`);
      this.host.agent.bus.publish("system", "kernel", {
        kind: "plugin_failed",
        plugin: factory.name,
        error: entry.error,
      });
    }
  }
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
