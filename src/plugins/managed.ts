/**
 * What the registry holds for each plugin, built-in or external: its state, its last error, and one queue
 * of operations, so a start, a stop and a crash restart of one plugin never overlap. A failure is always
 * visible: a log line, a `system` event and the state "failed" with the reason; so are stage handlers that
 * kept failing (health "degraded", with the reason).
 */
import type { Logger, PluginInfo, PluginKind, PluginState } from "@homeagent/sdk";
import type { Clock } from "../util/clock.js";
import { errorMessage } from "../util/errors.js";
import type { PluginHost } from "./sdk-impl.js";

/** What every plugin of one registry shares. */
export interface PluginContext {
  host: PluginHost;
  log: Logger;
  /** How long one plugin's start may take before it is marked failed. */
  startTimeoutMs: number;
  /** How long one plugin's stop may take before it is detached (or killed) anyway. */
  stopTimeoutMs: number;
  isDisabled(name: string): boolean;
  /** The daemon is shutting down: nothing is restarted. */
  isStopping(): boolean;
  /** For when a plugin started (its uptime) and the crash policy's pauses; tests pass a clock they drive. */
  clock: Clock;
}

/** States in which something may be running that a stop has to end. */
export const ACTIVE_STATES: ReadonlySet<PluginState> = new Set(["starting", "running", "restarting"]);

export abstract class ManagedPlugin {
  abstract readonly kind: PluginKind;
  state: PluginState = "stopped";
  lastError: string | undefined;
  /** When it last reached "running" (Unix ms). */
  private startedAt: number | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: string,
    protected readonly ctx: PluginContext,
    /** Why this plugin may not run at all (e.g. its name is taken); start() then only reports it. */
    private readonly refusal?: Error,
  ) {}

  abstract info(): PluginInfo;

  /** Bounded; never throws: false = it failed, and that was reported. */
  start(): Promise<boolean> {
    return this.serial(async () => {
      if (this.refusedWhileStopping()) return false;
      if (this.refusal) {
        this.failed(this.refusal);
        return false;
      }
      return this.doStart();
    });
  }

  /**
   * Bounded; everything it registered is detached, whatever its stop() does. A plugin that was not running
   * keeps its state (and the reason it failed), unless it is being disabled.
   */
  stop(final: "stopped" | "disabled" = "stopped"): Promise<void> {
    return this.serial(async () => {
      const wasActive = ACTIVE_STATES.has(this.state);
      await this.doStop();
      if (wasActive || final === "disabled") this.state = final;
    });
  }

  /**
   * Once the daemon is shutting down nothing starts any more (a reload or enable racing the shutdown would
   * leave a plugin running after it): true = refused, and the plugin says why.
   */
  protected refusedWhileStopping(): boolean {
    if (!this.ctx.isStopping()) return false;
    this.state = "stopped";
    this.lastError = "not started: homed is shutting down";
    return true;
  }

  /**
   * Stopped (whatever it was doing) and started again from what is on disk, as one step: no crash restart
   * can come in between, a critical plugin's stages stay closed (not open) until it is back, and an
   * external plugin gets a new process. Bounded; never throws: false = it failed to start, and that was
   * reported.
   */
  restart(): Promise<boolean> {
    return this.serial(async () => {
      if (this.refusedWhileStopping()) return false;
      // Disabled while this waited its turn (a reload reading the plugin's files): the disable stands.
      if (this.ctx.isDisabled(this.name)) {
        this.state = "disabled";
        return false;
      }
      await this.doStop("it is being restarted");
      if (this.refusal) {
        this.failed(this.refusal);
        return false;
      }
      return this.doStart();
    });
  }

  /** Not started because the user disabled it. */
  markDisabled(): void {
    this.state = "disabled";
    this.ctx.log.info(`plugin "${this.name}" is disabled; not started`);
  }

  protected abstract doStart(): Promise<boolean>;
  /** `closeStages`: why a critical plugin's stages are closed meanwhile (a restart), rather than removed. */
  protected abstract doStop(closeStages?: string): Promise<void>;

  /** Runs `fn` once every earlier operation on this plugin has settled. */
  protected serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /** It started: from now on it is running. */
  protected running(): void {
    this.state = "running";
    this.startedAt = this.ctx.clock.now();
  }

  protected baseInfo(): Pick<
    PluginInfo,
    "name" | "kind" | "state" | "health" | "healthReason" | "lastError" | "startedAt"
  > {
    // Stage handlers that kept failing are skipped while it runs on (StageHost, stage-suspend.ts).
    const suspension = this.degradedBy();
    const health = this.state === "unhealthy" ? "unhealthy" : suspension ? "degraded" : "ok";
    return {
      name: this.name,
      kind: this.kind,
      state: this.state,
      health,
      ...(health === "degraded" ? { healthReason: suspension } : {}),
      ...(this.lastError ? { lastError: this.lastError } : {}),
      ...(this.state === "running" && this.startedAt !== undefined ? { startedAt: this.startedAt } : {}),
    };
  }

  /** Why its stage handlers are suspended, if they are. */
  degradedBy(): string | undefined {
    return this.ctx.host.agent.stages.suspension(this.name)?.reason;
  }

  /** The plugin could not be loaded or started: state, log line and `system` event. */
  protected failed(err: unknown): void {
    this.state = "failed";
    this.lastError = errorMessage(err);
    this.ctx.log.error(`plugin "${this.name}" failed to start: ${this.lastError}`);
    this.publish({ kind: "plugin_failed", plugin: this.name, error: this.lastError });
  }

  protected publish(payload: Record<string, unknown>): void {
    this.ctx.host.agent.bus.publish("system", "kernel", payload);
  }
}
