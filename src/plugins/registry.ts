/**
 * PluginRegistry: the built-in factories plus one external plugin per directory under `<data>/plugins/`,
 * all started at once, each bounded by the start timeout, so one hung plugin delays nobody. A plugin that
 * cannot be loaded is never skipped silently: it is logged, announced (`system` plugin_failed) and listed as
 * failed with the reason. Plugins are managed while the daemon runs: disable and enable take effect at once
 * and are remembered; reload starts what changed on disk (by entry-file SHA-256) and leaves the rest running.
 */
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Logger, PluginInfo, ReloadReport } from "@homeagent/sdk";
import { requirePluginName } from "../config/plugin-settings.js";
import type { ConfigRegistry } from "../config/registry.js";
import { isCoreOwner } from "../kernel/tools.js";
import { type Clock, systemClock } from "../util/clock.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { BuiltinPlugin, type PluginFactory } from "./builtin.js";
import { checkDeclared } from "./capabilities.js";
import { PluginMgrError, PluginNameError } from "./errors.js";
import { type ExternalContext, ExternalPlugin, type Launcher } from "./external.js";
import { ACTIVE_STATES, type ManagedPlugin } from "./managed.js";
import { loadPluginDir } from "./manifest.js";
import { killOrphans } from "./proc/orphans.js";
import { PluginProcess } from "./proc/plugin-process.js";
import { linkSdk } from "./proc/spawn.js";
import type { PluginHost, PluginManagerHost } from "./sdk-impl.js";

export type { PluginFactory } from "./builtin.js";

/** More directories than this under plugins/ are refused (each one listed as failed, saying why). */
export const MAX_EXTERNAL_PLUGINS = 256;

export interface RegistryOptions {
  /** How long one plugin's start may take before it is marked failed; default 10 s. */
  startTimeoutMs?: number;
  /** How long one plugin's stop may take before it is detached (an external one killed) anyway; default 5 s. */
  stopTimeoutMs?: number;
  /** How long an external plugin may take to answer the handshake; default 10 s. */
  handshakeTimeoutMs?: number;
  /** `<data>/plugins`: one directory per external plugin; absent = built-ins only. */
  pluginDir?: string;
  /** For the crash policy's pauses; tests pass a clock they drive. */
  clock?: Clock;
  /** How an external plugin's process is started; default PluginProcess.launch. */
  launch?: Launcher;
}

export class PluginRegistry implements PluginManagerHost {
  private plugins: ManagedPlugin[] = [];
  private stopping = false;
  /** One reload at a time: two at once would both start a new directory's plugin. */
  private reloads: Promise<unknown> = Promise.resolve();
  private readonly ctx: ExternalContext;
  private readonly pluginDir: string | undefined;

  constructor(
    host: PluginHost,
    private readonly config: ConfigRegistry,
    private readonly log: Logger,
    opts: RegistryOptions = {},
  ) {
    this.pluginDir = opts.pluginDir;
    this.ctx = {
      host,
      log,
      startTimeoutMs: opts.startTimeoutMs ?? 10_000,
      stopTimeoutMs: opts.stopTimeoutMs ?? 5_000,
      handshakeTimeoutMs: opts.handshakeTimeoutMs ?? 10_000,
      isDisabled: (name) => config.isPluginDisabled(name),
      isStopping: () => this.stopping,
      clock: opts.clock ?? systemClock,
      launch: opts.launch ?? ((o) => PluginProcess.launch(o)),
    };
  }

  /** Starts the built-ins and every plugin directory, all at once; resolves when each has started or failed. */
  async startAll(factories: PluginFactory[]): Promise<void> {
    await this.killOrphans();
    // Handlers apply in a stable order whatever process registers first or restarts: built-ins in their list
    // order, then external plugins (equal rank: StageHost orders them by name).
    const builtins = factories.map((f) => f.name);
    this.ctx.host.agent.stages.setRank((plugin) => {
      const i = builtins.indexOf(plugin);
      return i >= 0 ? i : builtins.length;
    });
    for (const factory of factories) {
      this.plugins.push(new BuiltinPlugin(factory, this.ctx, this.refusal(factory.name, factory.capabilities, false)));
    }
    this.linkSdk();
    for (const dir of await this.scan()) this.plugins.push(this.external(dir));
    await Promise.all(this.plugins.map((p) => this.begin(p)));
  }

  /** Stops everything, each bounded; nothing is started or restarted from now on. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    // A reload under way starts nothing more now, but it is let finish, so none outlives this.
    for (let chain = this.reloads; ; chain = this.reloads) {
      await chain;
      if (chain === this.reloads) break;
    }
    await Promise.all(this.plugins.map((p) => p.stop()));
  }

  list(): PluginInfo[] {
    return this.plugins.map((p) => p.info());
  }

  async enable(name: string): Promise<void> {
    if (this.stopping) {
      throw new HomeAgentError({
        code: "plugin_shutting_down",
        message: `plugin "${name}" cannot be enabled now: homed is shutting down; enable it after the restart`,
      });
    }
    const plugin = this.find(name);
    if (!plugin && this.config.isPluginDisabled(name)) {
      // Its directory is gone, but it stays on the disabled list unless taken off.
      this.config.enablePlugin(name);
      return;
    }
    const found = this.require(name, plugin);
    this.config.enablePlugin(name);
    if (ACTIVE_STATES.has(found.state)) return;
    if (found instanceof ExternalPlugin) found.resetCrashes();
    this.log.info(`plugin "${name}" enabled`);
    if (!(await found.start())) {
      throw new HomeAgentError({
        code: "plugin_start_failed",
        message: `plugin "${name}" is enabled, but it failed to start: ${found.lastError}`,
      });
    }
  }

  /** `by`: who asked (a plugin's name, or "user"), for the disabled list. */
  async disable(name: string, by = "user"): Promise<void> {
    const plugin = this.require(name, this.find(name));
    this.config.disablePlugin(name, by);
    await plugin.stop("disabled");
    this.log.info(`plugin "${name}" disabled by ${by}`);
  }

  /**
   * Stops a plugin and starts it again (an external one in a new process, its crash count reset); refused
   * for a disabled one, which `enable` starts.
   */
  async restart(name: string): Promise<void> {
    if (this.stopping) {
      throw new HomeAgentError({
        code: "plugin_shutting_down",
        message: `plugin "${name}" cannot be restarted now: homed is shutting down`,
      });
    }
    const plugin = this.require(name, this.find(name));
    if (this.config.isPluginDisabled(name)) {
      throw new PluginMgrError("plugin_disabled", `plugin "${name}" is disabled; enable it to start it`);
    }
    if (plugin instanceof ExternalPlugin) plugin.resetCrashes();
    this.log.info(`plugin "${name}" restarted by hand`);
    if (!(await plugin.restart())) {
      throw new HomeAgentError({
        code: "plugin_start_failed",
        message: `plugin "${name}" was stopped, but it failed to start again: ${plugin.lastError}`,
      });
    }
  }

  /** External plugins: `name`, or every directory (new ones started, removed ones stopped) when omitted. */
  reload(name?: string): Promise<ReloadReport> {
    const run = this.reloads.then(() => this.reloadNow(name));
    this.reloads = run.catch(() => {});
    return run;
  }

  private async reloadNow(name: string | undefined): Promise<ReloadReport> {
    const report: ReloadReport = { reloaded: [], unchanged: [], added: [], removed: [], failed: [] };
    this.linkSdk();
    let dirs = await this.scan();
    let current = this.plugins.filter((p): p is ExternalPlugin => p instanceof ExternalPlugin);
    if (name !== undefined) {
      const plugin = this.find(name);
      if (plugin?.kind === "builtin") {
        throw new PluginMgrError(
          "plugin_not_reloadable",
          `plugin "${name}" is built in, and built-ins are not hot-reloaded; use /plugins restart ${name}`,
        );
      }
      dirs = dirs.filter((d) => basename(d) === name);
      current = current.filter((p) => p.name === name);
      if (dirs.length === 0 && current.length === 0) throw notFound(name);
    }
    if (this.stopping) return report;
    const present = new Set(dirs);
    await Promise.all([
      ...current.filter((p) => !present.has(p.dir)).map((p) => this.remove(p, report)),
      ...current.filter((p) => present.has(p.dir)).map((p) => this.refresh(p, report)),
      ...dirs.filter((d) => !current.some((p) => p.dir === d)).map((d) => this.add(d, report)),
    ]);
    // They finished in whatever order; a report reads better by name.
    for (const names of [report.reloaded, report.unchanged, report.added, report.removed]) names.sort();
    report.failed.sort((a, b) => a.name.localeCompare(b.name));
    this.log.info(
      `plugins reloaded: ${report.reloaded.length} reloaded, ${report.added.length} added, ${report.removed.length} removed, ${report.unchanged.length} unchanged, ${report.failed.length} failed`,
    );
    return report;
  }

  private async remove(plugin: ExternalPlugin, report: ReloadReport): Promise<void> {
    this.plugins = this.plugins.filter((p) => p !== plugin);
    await plugin.stop();
    this.ctx.host.agent.stages.setCritical(plugin.name, false);
    report.removed.push(plugin.name);
  }

  private async add(dir: string, report: ReloadReport): Promise<void> {
    if (this.stopping) return;
    const plugin = this.external(dir);
    this.plugins.push(plugin);
    if (await this.begin(plugin)) report.added.push(plugin.name);
    else report.failed.push({ name: plugin.name, error: plugin.lastError ?? "" });
  }

  /**
   * Unchanged on disk and running well: left alone. Otherwise (degraded too: a reload is what lifts that)
   * stopped and started from what is on disk now.
   */
  private async refresh(plugin: ExternalPlugin, report: ReloadReport): Promise<void> {
    plugin.resetCrashes();
    if (this.config.isPluginDisabled(plugin.name)) {
      report.unchanged.push(plugin.name);
      return;
    }
    const next = await loadPluginDir(plugin.dir, this.ctx.startTimeoutMs).then(
      (l) => `${l.entry.sha256}:${l.manifestSha256}`,
      () => undefined,
    );
    const healthy = plugin.degradedBy() === undefined;
    if (plugin.state === "running" && healthy && next !== undefined && next === plugin.fingerprint) {
      report.unchanged.push(plugin.name);
      return;
    }
    if (await plugin.restart()) report.reloaded.push(plugin.name);
    else report.failed.push({ name: plugin.name, error: plugin.lastError ?? "" });
  }

  /** Starts `plugin` unless it may not run or is disabled; false = it failed (and that was reported). */
  private begin(plugin: ManagedPlugin): Promise<boolean> {
    if (this.config.isPluginDisabled(plugin.name)) {
      plugin.markDisabled();
      return Promise.resolve(true);
    }
    return plugin.start();
  }

  private external(dir: string): ExternalPlugin {
    const name = basename(dir);
    const count = this.plugins.filter((p) => p instanceof ExternalPlugin).length;
    const refusal =
      count >= MAX_EXTERNAL_PLUGINS
        ? new HomeAgentError({
            code: "plugin_limit",
            message: `more than ${MAX_EXTERNAL_PLUGINS} plugin directories in ${this.pluginDir}; remove some`,
          })
        : this.refusal(name, [], true);
    return new ExternalPlugin(dir, name, this.ctx, refusal);
  }

  /** Why a plugin of this name may not run at all, if it may not. */
  private refusal(name: string, capabilities: readonly string[], external: boolean): Error | undefined {
    try {
      requirePluginName(name);
      // "kernel", "memory", "knowledge" and "llm" own the daemon's own tools.
      if (isCoreOwner(name)) throw new PluginNameError(name, "is reserved for the daemon's own tools");
      // Tools, stages, settings and files are keyed by plugin name: a second plugin of one name would share
      // them, and its failure would detach the first one's registrations.
      const taken = this.find(name);
      if (taken) {
        const by = external && taken.kind === "builtin" ? "a built-in plugin" : "another plugin";
        throw new PluginNameError(name, `is already taken by ${by}`, "plugin_name_taken");
      }
      checkDeclared(name, capabilities);
      return undefined;
    } catch (err) {
      return err instanceof Error
        ? err
        : new HomeAgentError({ code: "internal_error", message: errorMessage(err), cause: err });
    }
  }

  /** Before any plugin child of ours runs: what a killed earlier daemon on this data directory left running. */
  private async killOrphans(): Promise<void> {
    if (!this.pluginDir) return;
    const { dataDir } = this.ctx.host;
    try {
      const pids = await killOrphans(dataDir);
      if (pids.length > 0) {
        this.log.warn(
          `killed ${pids.length} plugin process(es) an earlier homed on ${dataDir} left running (pids ${pids.join(", ")})`,
        );
      }
    } catch (err) {
      this.log.warn(`cannot look for plugin processes an earlier homed left running: ${errorMessage(err)}`);
    }
  }

  /** A plugin.js that imports @homeagent/sdk fails to load without it, saying so; the daemon goes on. */
  private linkSdk(): void {
    if (!this.pluginDir) return;
    try {
      linkSdk(this.pluginDir);
    } catch (err) {
      this.log.warn(`cannot link @homeagent/sdk into ${this.pluginDir}/node_modules: ${errorMessage(err)}`);
    }
  }

  /** The plugin directories, by name; hidden entries and plain files are not plugins. */
  private async scan(): Promise<string[]> {
    const root = this.pluginDir;
    if (!root) return [];
    let names: string[];
    try {
      // node_modules holds the SDK link plugin.js files import (linkSdk), not a plugin.
      names = (await readdir(root)).filter((n) => !n.startsWith(".") && n !== "node_modules").sort();
    } catch (err) {
      this.log.error(`cannot read the plugin directory ${root}: ${errorMessage(err)}; no external plugin is loaded`);
      return [];
    }
    const dirs = await Promise.all(
      names.map(async (n) => ((await stat(join(root, n)).catch(() => undefined))?.isDirectory() ? join(root, n) : "")),
    );
    return dirs.filter(Boolean);
  }

  private find(name: string): ManagedPlugin | undefined {
    return this.plugins.find((p) => p.name === name);
  }

  private require(name: string, plugin: ManagedPlugin | undefined): ManagedPlugin {
    if (!plugin) throw notFound(name);
    return plugin;
  }
}

function notFound(name: string): PluginMgrError {
  return new PluginMgrError("plugin_not_found", `no plugin named "${name}"; /plugins lists them`);
}
