/**
 * A built-in plugin: a factory shipped in homed, run in-process with its own PluginSDK confined to the
 * capabilities the factory declares. It is not hot-reloaded, but it can be disabled and enabled; each start
 * creates a fresh plugin object and SDK, so nothing of a stopped run carries over.
 */
import { type Capability, PLUGIN_API_VERSION, type Plugin, type PluginInfo } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { withinTime } from "../util/time-limit.js";
import { PluginApiVersionError, PluginTimeoutError } from "./errors.js";
import { ManagedPlugin, type PluginContext } from "./managed.js";
import { createPluginSDK, type PluginBinding } from "./sdk-impl.js";

export interface PluginFactory {
  name: string;
  /** What the plugin may do beyond `core` (always granted); see CAPABILITIES in the SDK. */
  capabilities: readonly Capability[];
  /** Set only for plugins shipped in src/builtins: they may also call the built-in-only members (publish). */
  builtin?: boolean;
  /**
   * It changes settings for the model (cfgmgr's tools), not for the user: its config writes are bound as an
   * external plugin's are, to `agentWritable` settings, by the registry's own lookup of each key.
   */
  forModel?: boolean;
  /**
   * Tools it may have registered at once, instead of the usual limit: a built-in that stands for other
   * programs' tools (the MCP client) needs more, and the tool budget of the prompt (tool_search) keeps them
   * from crowding it.
   */
  maxTools?: number;
  create(): Plugin;
}

export class BuiltinPlugin extends ManagedPlugin {
  readonly kind = "builtin" as const;
  private plugin: Plugin | undefined;
  private binding: PluginBinding | undefined;

  constructor(
    private readonly factory: PluginFactory,
    ctx: PluginContext,
    refusal?: Error,
  ) {
    super(factory.name, ctx, refusal);
  }

  info(): PluginInfo {
    return {
      ...this.baseInfo(),
      capabilities: ["core", ...this.factory.capabilities.filter((c) => c !== "core")],
      critical: false,
      crashes: 0,
      restarts: 0,
    };
  }

  protected async doStart(): Promise<boolean> {
    const { factory, ctx } = this;
    this.state = "starting";
    this.lastError = undefined;
    try {
      const plugin = factory.create();
      if (plugin.apiVersion !== PLUGIN_API_VERSION) {
        throw new PluginApiVersionError(factory.name, plugin.apiVersion, PLUGIN_API_VERSION);
      }
      this.plugin = plugin;
      this.binding = createPluginSDK(factory.name, ctx.host, {
        capabilities: factory.capabilities,
        builtin: factory.builtin === true,
        forModel: factory.forModel === true,
        ...(factory.maxTools ? { maxTools: factory.maxTools } : {}),
      });
      const sdk = this.binding.sdk;
      await withinTime(
        Promise.resolve().then(() => plugin.start(sdk)),
        ctx.startTimeoutMs,
        () => new PluginTimeoutError(factory.name, "start", ctx.startTimeoutMs),
        ({ error }) =>
          ctx.log.warn(
            `plugin "${factory.name}" ${error === undefined ? "finished starting" : `failed (${errorMessage(error)})`} after its start timeout; it stays failed`,
          ),
      );
      this.running();
      ctx.log.info(`plugin "${factory.name}" started`);
      return true;
    } catch (err) {
      // Revoked first, so nothing the failed start left running can act through the SDK; then the plugin
      // may release whatever it acquired before failing.
      this.binding?.detach();
      this.binding = undefined;
      this.failed(err);
      await this.callStop();
      return false;
    }
  }

  protected async doStop(): Promise<void> {
    await this.callStop();
    this.binding?.detach();
    this.binding = undefined;
  }

  private async callStop(): Promise<void> {
    const plugin = this.plugin;
    if (!plugin) return;
    this.plugin = undefined;
    try {
      await withinTime(
        Promise.resolve().then(() => plugin.stop()),
        this.ctx.stopTimeoutMs,
        () => new PluginTimeoutError(this.name, "stop", this.ctx.stopTimeoutMs),
      );
    } catch (err) {
      this.ctx.log.warn(`plugin "${this.name}" failed to stop cleanly: ${errorMessage(err)}`);
    }
  }
}
