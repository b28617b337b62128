/**
 * A supervised external plugin: one directory under `<data>/plugins/`, run as a child process through the
 * proc host. When the child dies unexpectedly, everything it registered is detached at once (a critical
 * plugin's stages are closed instead, so they refuse rather than let turns through unguarded), a
 * `plugin_crashed` event says what happened, and the crash policy decides whether and when it is started
 * again. The directory is read afresh at every start, so a restart or reload runs what is on disk.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type PluginInfo, STAGES } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { withinTime } from "../util/time-limit.js";
import { CrashHistory } from "./crash-policy.js";
import { PluginTimeoutError } from "./errors.js";
import { ManagedPlugin, type PluginContext } from "./managed.js";
import { ENTRY_FILES, type LoadedPlugin, loadPluginDir } from "./manifest.js";
import type { ExitInfo, LaunchOptions } from "./proc/plugin-process.js";
import { pluginCommand } from "./proc/spawn.js";
import { createPluginSDK, type PluginBinding } from "./sdk-impl.js";

/** The part of PluginProcess the supervisor uses. */
export interface RunningProcess {
  readonly pid: number;
  /** Set by the plugin's core.setAutoRestart; false = not restarted after a crash. */
  readonly autoRestart: boolean;
  stop(graceMs?: number): Promise<void>;
  kill(): void;
}

export type Launcher = (opts: LaunchOptions) => Promise<RunningProcess>;

export interface ExternalContext extends PluginContext {
  launch: Launcher;
  /** Passed to the proc host: how long the child may take to answer the handshake. */
  handshakeTimeoutMs: number;
}

/** Characters of the stderr tail quoted in lastError (the event carries the whole tail). */
const TAIL_IN_ERROR = 300;

export class ExternalPlugin extends ManagedPlugin {
  /** What the last successful read of the directory found; kept when a later read fails. */
  private loaded: LoadedPlugin | undefined;
  private proc: RunningProcess | undefined;
  private binding: PluginBinding | undefined;
  /** Bumped by every launch and stop: an exit report of an earlier child is ignored. */
  private generation = 0;
  /** The child died while launch() had not yet resolved: handled as a crash once it has. */
  private earlyExit: ExitInfo | undefined;
  private readonly crashes: CrashHistory;
  private restarts = 0;
  private restartTimer: unknown;

  constructor(
    readonly dir: string,
    name: string,
    protected override readonly ctx: ExternalContext,
    refusal?: Error,
  ) {
    super(name, ctx, refusal);
    this.crashes = new CrashHistory(ctx.clock);
  }

  get kind(): "js" | "bin" {
    return this.loaded?.entry.kind ?? (existsSync(join(this.dir, ENTRY_FILES.bin)) ? "bin" : "js");
  }

  /** Entry and manifest hashes of what runs now; undefined when nothing was read yet. */
  get fingerprint(): string | undefined {
    return this.loaded && `${this.loaded.entry.sha256}:${this.loaded.manifestSha256}`;
  }

  private get critical(): boolean {
    return this.loaded?.manifest.critical === true;
  }

  info(): PluginInfo {
    const manifest = this.loaded?.manifest;
    return {
      ...this.baseInfo(),
      capabilities: manifest ? ["core", ...manifest.capabilities.filter((c) => c !== "core")] : ["core"],
      critical: this.critical,
      crashes: this.crashes.count(),
      restarts: this.restarts,
      ...(this.proc ? { pid: this.proc.pid } : {}),
      ...(manifest?.version ? { version: manifest.version } : {}),
      ...(manifest?.description ? { description: manifest.description } : {}),
    };
  }

  /** A start by hand (enable, reload): the crash history is forgiven. */
  resetCrashes(): void {
    this.crashes.reset();
    this.restarts = 0;
  }

  protected async doStart(): Promise<boolean> {
    this.cancelRestart();
    // A reload or restart that was queued behind the shutdown's stop.
    if (this.refusedWhileStopping()) return false;
    this.state = "starting";
    this.lastError = undefined;
    this.earlyExit = undefined;
    const gen = ++this.generation;
    try {
      const loaded = await loadPluginDir(this.dir, this.ctx.startTimeoutMs);
      this.loaded = loaded;
      // Before it registers anything: a failing handler of a critical plugin refuses instead of letting turns by.
      this.ctx.host.agent.stages.setCritical(this.name, loaded.manifest.critical === true);
      const grant = { capabilities: loaded.manifest.capabilities, builtin: false };
      this.binding = createPluginSDK(this.name, this.ctx.host, grant);
      const proc = await this.launch(gen, loaded, this.binding);
      this.proc = proc;
      this.running();
      // Closed while it was down (or marked critical by an earlier manifest): open again.
      this.ctx.host.agent.stages.reopen(this.name);
      this.ctx.log.info(`plugin "${this.name}" started (${this.kind}, pid ${proc.pid})`);
      if (loaded.manifest.deprecated) this.ctx.log.warn(`plugin "${this.name}" is deprecated by its author`);
      if (this.earlyExit) this.crashed(this.earlyExit);
      return true;
    } catch (err) {
      this.down(`it failed to start: ${errorMessage(err)}`, true);
      this.failed(err);
      return false;
    }
  }

  /** `closeStages`: a critical plugin's stages are closed with this reason rather than removed. */
  protected async doStop(closeStages?: string): Promise<void> {
    this.cancelRestart();
    this.generation++;
    const proc = this.proc;
    this.proc = undefined;
    if (proc) {
      const { stopTimeoutMs } = this.ctx;
      // The proc host kills the child after the grace period; this bound only guards against a host bug.
      await withinTime(
        proc.stop(stopTimeoutMs),
        stopTimeoutMs + 2000,
        () => new PluginTimeoutError(this.name, "stop", stopTimeoutMs),
      ).catch((err: unknown) => {
        this.ctx.log.warn(`plugin "${this.name}" did not stop in time (${String(err)}); killed`);
        proc.kill();
      });
    }
    if (closeStages !== undefined) {
      this.down(closeStages);
      return;
    }
    this.binding?.detach();
    this.binding = undefined;
    // A critical plugin's closed stages go too: it was stopped on purpose.
    this.ctx.host.agent.stages.unregisterPlugin(this.name);
  }

  private launch(gen: number, loaded: LoadedPlugin, binding: PluginBinding): Promise<RunningProcess> {
    const { ctx } = this;
    const { command, args } = pluginCommand(loaded.entry.path, loaded.entry.kind);
    const launching = ctx.launch({
      name: this.name,
      dir: this.dir,
      command,
      args,
      binding,
      capabilities: loaded.manifest.capabilities,
      stages: ctx.host.agent.stages,
      log: ctx.host.logger(this.name),
      handshakeTimeoutMs: ctx.handshakeTimeoutMs,
      startTimeoutMs: ctx.startTimeoutMs,
      callTimeoutMs: () => ctx.host.config.getDuration("core.agent.tool_timeout"),
      stageTimeoutMs: () => ctx.host.config.getDuration("core.plugin.stage_timeout"),
      onExit: (info: ExitInfo) => this.exited(gen, info),
      settingsChanges: (listener) => {
        const prefix = `plugin.${this.name}.`;
        return ctx.host.config.onChange((key, value) => {
          if (key.startsWith(prefix)) listener(key.slice(prefix.length), value);
        });
      },
    });
    // The proc host bounds each step itself (handshake, init with the handshake's limit, start); this only
    // guards against it never answering.
    const bound = 2 * ctx.handshakeTimeoutMs + ctx.startTimeoutMs + 1000;
    return withinTime(
      launching,
      bound,
      () => new PluginTimeoutError(this.name, "start", bound),
      ({ value }) => value?.kill(),
    );
  }

  private exited(gen: number, info: ExitInfo): void {
    if (info.expected || gen !== this.generation) return;
    if (!this.proc) {
      this.earlyExit = info;
      return;
    }
    this.crashed(info);
  }

  /** Unexpected exit of the running child: detach at once, tell, then restart or give up. */
  private crashed(info: ExitInfo): void {
    const proc = this.proc;
    const autoRestart = (this.binding?.autoRestart ?? true) && (proc?.autoRestart ?? true);
    this.proc = undefined;
    this.generation++;
    const how = info.code !== null ? `exited with code ${info.code}` : `was killed by ${info.signal ?? "a signal"}`;
    this.down(`it crashed (${how})`);
    const tail = info.stderrTail.trim().slice(-TAIL_IN_ERROR);
    this.lastError = `crashed: ${how}${tail ? `; stderr: ${tail}` : ""}`;
    this.ctx.log.error(`plugin "${this.name}" ${how}${tail ? `; last stderr: ${tail}` : ""}`);
    this.publish({
      kind: "plugin_crashed",
      plugin: this.name,
      exitCode: info.code,
      signal: info.signal,
      stderrTail: info.stderrTail,
    });
    this.afterFailure(autoRestart);
  }

  /** After a crash or a failed restart: the crash policy decides. */
  private afterFailure(autoRestart: boolean): void {
    if (this.ctx.isStopping()) {
      this.state = "stopped";
      return;
    }
    const verdict = this.crashes.record();
    if ("unhealthy" in verdict) {
      this.state = "unhealthy";
      const why = `crashed ${this.crashes.count()} times within 5 minutes`;
      this.lastError = `${why}; not restarted: fix it, then /plugins reload ${this.name} (last: ${this.lastError ?? "unknown"})`;
      this.down(`it ${why}`, true);
      this.ctx.log.error(`plugin "${this.name}" ${this.lastError}`);
      this.publish({ kind: "plugin_unhealthy", plugin: this.name, error: this.lastError });
      return;
    }
    if (!autoRestart) {
      this.state = "stopped";
      this.lastError = `${this.lastError}; not restarted: the plugin turned auto-restart off`;
      return;
    }
    this.state = "restarting";
    const restart = () => {
      this.restartTimer = undefined;
      void this.serial(() => this.restartAfterCrash());
    };
    if (verdict.restartInMs === 0) restart();
    else this.restartTimer = this.ctx.clock.setTimer(restart, verdict.restartInMs);
  }

  private async restartAfterCrash(): Promise<void> {
    // Disabled, reloaded or shut down in the meantime: whoever did that decided instead.
    if (this.state !== "restarting") return;
    if (this.ctx.isStopping() || this.ctx.isDisabled(this.name)) {
      this.state = this.ctx.isStopping() ? "stopped" : "disabled";
      return;
    }
    this.restarts++;
    this.ctx.log.info(`plugin "${this.name}": restart ${this.restarts}`);
    if (!(await this.doStart())) this.afterFailure(true);
  }

  private cancelRestart(): void {
    if (this.restartTimer === undefined) return;
    this.ctx.clock.clearTimer(this.restartTimer);
    this.restartTimer = undefined;
  }

  /**
   * Detaches what the plugin registered. A critical plugin's stages are closed with `reason` instead, so a
   * guard that is down refuses what it would have checked. `everyStage`: it failed to start or gave up
   * (unhealthy), so nobody knows what it would have guarded: every stage refuses until it runs again.
   */
  private down(reason: string, everyStage = false): void {
    const critical = this.critical;
    this.binding?.detach(critical ? { closeStages: reason } : undefined);
    this.binding = undefined;
    if (critical && everyStage) this.ctx.host.agent.stages.closeFor(this.name, reason, STAGES);
  }
}
