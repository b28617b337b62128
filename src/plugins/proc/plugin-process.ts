/**
 * One running subprocess plugin: spawn → handshake → plugin.init → plugin.start, then serving its core.*
 * calls (bridge.ts) while the daemon calls into it. Every step has a deadline, and a launch that fails at
 * any of them kills the child and says which step failed, with the plugin's last stderr lines. The child's
 * exit is watched on the process itself (a grandchild may hold stdout open long after), and at the exit
 * every call waiting on the plugin fails at once instead of waiting out its deadline.
 */
import { randomUUID } from "node:crypto";
import { PassThrough } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import type { Capability, Logger } from "@homeagent/sdk";
import {
  PROTOCOL_VERSION,
  type RequestContext,
  RPC_CLOSED,
  RPC_DEADLINE,
  RpcError,
  RpcPeer,
} from "@homeagent/sdk/protocol";
import type { StageHost } from "../../kernel/stages.js";
import { errorMessage } from "../../util/errors.js";
import { isObject } from "../../util/object.js";
import { VERSION } from "../../version.js";
import type { PluginBinding } from "../sdk-impl.js";
import { PluginBridge } from "./bridge.js";
import { type LaunchErrorCode, type LaunchStep, PluginLaunchError } from "./errors.js";
import { LogRate } from "./log-rate.js";
import { killPluginTree } from "./orphans.js";
import { ProtocolLog } from "./protocol-log.js";
import { killGroup, type PluginChild, spawnPlugin } from "./spawn.js";
import { StderrLog } from "./stderr-log.js";

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** The last 4 KiB the plugin wrote to stderr. */
  stderrTail: string;
  /** stop() asked for it; false for a crash or a kill(). */
  expected: boolean;
}

export interface LaunchOptions {
  name: string;
  /** The plugin's directory: its cwd. */
  dir: string;
  /** From pluginCommand(): plugin.bin itself, or node with the stdio runner and plugin.js. */
  command: string;
  args: string[];
  /** The plugin's gated PluginSDK (createPluginSDK): every core.* call goes through it. */
  binding: PluginBinding;
  capabilities: readonly Capability[];
  /** Where remote stage handlers are registered (the agent's StageHost). */
  stages: Pick<StageHost, "registerRemote">;
  /** The plugin's logger: its stderr lines and protocol errors go here. */
  log: Logger;
  /** Default 10 s. */
  handshakeTimeoutMs?: number;
  /** Default 10 s. */
  startTimeoutMs?: number;
  /** Deadline of tool and output calls; default 60 s. */
  callTimeoutMs?: () => number;
  /** How long a log flood must be over before it is summed up; default 1 s (tests shrink it). */
  logQuietMs?: number;
  /** Deadline sent with stage.invoke; default callTimeoutMs. */
  stageTimeoutMs?: () => number;
  /** Called once when a launched plugin's process ends (not for a launch that failed: that rejects). */
  onExit(info: ExitInfo): void;
  /**
   * Subscribes to changes of the plugin's own settings (relative key, new value); returns the unsubscribe.
   * Each change is sent as a `settings.changed` notification, so the plugin's cached settings stay current.
   */
  settingsChanges?: (listener: (key: string, value: string) => void) => () => void;
}

const HANDSHAKE_TIMEOUT_MS = 10_000;
/** What a notification is served with: there is no request to cancel. */
const NOTIFICATION: RequestContext = { id: 0, signal: new AbortController().signal, onCancel: () => {} };
const START_TIMEOUT_MS = 10_000;
const CALL_TIMEOUT_MS = 60_000;
/** After the exit, how long stderr may take to deliver its last bytes (a grandchild may hold it open). */
const STDERR_DRAIN_MS = 100;
/** How long a launch step whose connection broke waits for the exit, to report the exit code instead. */
const EXIT_WAIT_MS = 1000;

const STEPS = {
  handshake: { step: "handshake", failed: "plugin_handshake_failed", late: "plugin_handshake_timeout" },
  "plugin.init": { step: "init", failed: "plugin_init_failed", late: "plugin_init_failed" },
  "plugin.start": { step: "start", failed: "plugin_start_failed", late: "plugin_start_timeout" },
} as const satisfies Record<string, { step: LaunchStep; failed: LaunchErrorCode; late: LaunchErrorCode }>;

export class PluginProcess {
  readonly pid: number;
  private offSettings: (() => void) | undefined;
  /** The SDK version the plugin reported in its handshake. */
  sdkVersion = "";
  /** This launch's marker in the environment of everything the plugin forks (PLUGIN_RUN_ENV). */
  private readonly runId = randomUUID();
  private readonly child: PluginChild;
  private readonly peer: RpcPeer;
  private readonly bridge: PluginBridge;
  private readonly stderr: StderrLog;
  private readonly protocolLog: ProtocolLog;
  private readonly logRate: LogRate;
  private readonly exited: Promise<void>;
  private exit: Exit | undefined;
  private stopping: Promise<void> | undefined;
  private launched = false;

  private constructor(private readonly opts: LaunchOptions) {
    const { name, log } = opts;
    this.child = spawnPlugin({ ...opts, dataDir: opts.binding.sdk.daemonDataDir, runId: this.runId });
    this.pid = this.child.pid ?? -1;
    // core.log messages and stderr lines share one budget: a plugin cannot flood the log by either.
    const logRate = new LogRate(name, log, { quietMs: opts.logQuietMs });
    this.logRate = logRate;
    this.stderr = new StderrLog((line) => {
      if (logRate.admit()) log.info(`[stderr] ${line}`);
    });
    this.child.stderr.on("data", (chunk: Buffer) => this.stderr.push(chunk));
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream.on("error", (err) => log.warn(`reading from plugin "${name}" failed: ${err.message}`));
    }
    // Fed from stdout but ended only at the process's exit, so waiting calls fail with the exit code, not "EOF".
    const input = new PassThrough();
    this.child.stdout.pipe(input, { end: false });
    const protocolLog = new ProtocolLog(name, log);
    this.protocolLog = protocolLog;
    this.peer = new RpcPeer({
      input,
      output: this.child.stdin,
      onRequest: (method, params, ctx) => this.bridge.handle(method, params, ctx),
      onNotification: (method, params) => {
        // Logging needs no answer, so plugins send it as notifications; nothing else is taken that way.
        if (!method.startsWith("core.log.")) {
          protocolLog.report(`skipped notification ${method}: only core.log.* may be sent without an id`);
          return;
        }
        try {
          this.bridge.handle(method, params, NOTIFICATION);
        } catch (err) {
          protocolLog.report(`${method}: ${errorMessage(err)}`);
        }
      },
      onProtocolError: (message) => protocolLog.report(message),
    });
    const callTimeoutMs = opts.callTimeoutMs ?? (() => CALL_TIMEOUT_MS);
    this.bridge = new PluginBridge({
      name,
      binding: opts.binding,
      stages: opts.stages,
      peer: this.peer,
      log,
      callTimeoutMs,
      stageTimeoutMs: opts.stageTimeoutMs ?? callTimeoutMs,
      backlog: () => this.child.stdin.writableLength,
      logRate,
    });
    this.exited = new Promise<void>((resolve) => {
      this.child.once("exit", (code, signal) => void this.ended(code, signal, input).then(resolve));
      this.child.once("error", (err) => {
        // Only a failed spawn ends here; errors of a running child (a failed kill) are not its end.
        if (this.child.pid === undefined) void this.ended(null, null, input, err).then(resolve);
      });
    });
  }

  /** Starts the plugin; rejects with a PluginLaunchError (the child killed) if any step fails. */
  static async launch(opts: LaunchOptions): Promise<PluginProcess> {
    const proc = new PluginProcess(opts);
    await proc.boot();
    proc.launched = true;
    proc.offSettings = opts.settingsChanges?.((key, value) => proc.peer.notify("settings.changed", { key, value }));
    return proc;
  }

  /** Whether the daemon should restart the plugin after a crash (the plugin's core.setAutoRestart). */
  get autoRestart(): boolean {
    return this.opts.binding.autoRestart;
  }

  /** Events not delivered because the plugin was not reading its input. */
  get droppedEvents(): number {
    return this.bridge.droppedEvents;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Asks the plugin to stop; kills it after `graceMs`. Resolves when the process has exited. */
  stop(graceMs = 5000): Promise<void> {
    this.stopping ??= this.stopWithin(graceMs);
    return this.stopping;
  }

  /** SIGKILL now, the plugin and whatever it forked; onExit sees expected=false unless stop() was called. */
  kill(): void {
    if (this.exit === undefined && this.pid > 0) killGroup(this.pid);
  }

  private async stopWithin(graceMs: number): Promise<void> {
    if (this.exit !== undefined) return;
    const timer = setTimeout(() => {
      this.opts.log.warn(`plugin "${this.opts.name}" did not exit within ${graceMs} ms of plugin.stop; killed`);
      this.kill();
    }, graceMs);
    // Its stdin closing is the plugin's cue to exit, for one that answers (even with an error) and keeps running.
    const closeStdin = () => this.child.stdin.end();
    this.peer.call("plugin.stop", {}, { timeoutMs: graceMs }).then(closeStdin, closeStdin);
    await this.exited;
    clearTimeout(timer);
  }

  private async boot(): Promise<void> {
    const { name, binding } = this.opts;
    const handshake = await this.step("handshake", this.opts.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS, () => ({
      protocol: PROTOCOL_VERSION,
      coreVersion: VERSION,
      pluginName: name,
      attachments: true,
    }));
    if (!isObject(handshake)) {
      return this.fail(
        "handshake",
        "plugin_handshake_failed",
        `it answered ${JSON.stringify(handshake)?.slice(0, 200)}, expected {protocol, sdkVersion, pluginName, pid}`,
      );
    }
    if (handshake.protocol !== PROTOCOL_VERSION) {
      return this.fail(
        "handshake",
        "plugin_protocol_mismatch",
        `plugin "${name}" speaks plugin protocol ${JSON.stringify(handshake.protocol)} but homed speaks ${PROTOCOL_VERSION}: rebuild with a matching hmapdev (or @homeagent/sdk)`,
      );
    }
    if (handshake.pluginName !== name) {
      return this.fail(
        "handshake",
        "plugin_name_mismatch",
        `it calls itself ${JSON.stringify(handshake.pluginName)}: the name in plugin.json and the plugin's own name must be the same; change one of them`,
      );
    }
    this.sdkVersion = typeof handshake.sdkVersion === "string" ? handshake.sdkVersion : "";
    // Only a plugin that said it reads attachments gets them; every other one gets plain lines, as always.
    this.peer.sendAttachments = handshake.attachments === true;
    const capabilities = [...new Set<Capability>(["core", ...this.opts.capabilities])];
    await this.step("plugin.init", this.opts.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS, () => ({
      name,
      dataDir: binding.sdk.dataDir,
      daemonDataDir: binding.sdk.daemonDataDir,
      capabilities,
      settings: binding.sdk.settings.list(),
    }));
    await this.step("plugin.start", this.opts.startTimeoutMs ?? START_TIMEOUT_MS, () => ({}));
    if (this.exit) return this.fail("start", "plugin_start_failed", `it ${exitText(this.exit)} right after starting`);
  }

  /** One launch call; a failure (its own error, a deadline, the process ending) fails the launch. */
  private async step(method: keyof typeof STEPS, timeoutMs: number, params: () => unknown): Promise<unknown> {
    const { step, failed, late } = STEPS[method];
    try {
      return await this.peer.call(method, params(), { timeoutMs });
    } catch (err) {
      if (err instanceof RpcError && err.rpcCode === RPC_CLOSED) {
        // A write that failed (EPIPE) closes the connection a moment before the exit is seen: say how it ended.
        await Promise.race([this.exited, delay(EXIT_WAIT_MS, undefined, { ref: false })]);
        const why = this.exit ? `the plugin ${exitText(this.exit)}` : errorMessage(err);
        return this.fail(step, failed, `${method} failed: ${why}`, err);
      }
      if (!(err instanceof RpcError && err.rpcCode === RPC_DEADLINE)) {
        return this.fail(step, failed, `${method} failed: ${errorMessage(err)}`, err);
      }
      const hint =
        method === "handshake"
          ? ": the plugin must speak the HomeAgent plugin protocol (JSON-RPC lines on stdin/stdout, docs/plugin-protocol.md)"
          : method === "plugin.start"
            ? " (it must answer once it has registered its tools, stages and channels)"
            : "";
      return this.fail(
        step,
        late,
        `no answer to ${method === "handshake" ? "the handshake" : method} within ${timeoutMs} ms${hint}`,
        err,
      );
    }
  }

  /** Kills the child, waits for its exit (so its last stderr is in), and throws the launch error. */
  private async fail(step: LaunchStep, code: LaunchErrorCode, problem: string, cause?: unknown): Promise<never> {
    this.kill();
    await this.exited;
    throw new PluginLaunchError(this.opts.name, step, code, problem, this.stderr.tail(), cause);
  }

  private async ended(code: number | null, signal: string | null, input: PassThrough, spawnError?: Error) {
    if (this.exit) return;
    this.exit = { code, signal, spawnError: spawnError?.message };
    const { name } = this.opts;
    this.peer.close(`plugin "${name}" ${exitText(this.exit)}`);
    this.offSettings?.();
    this.bridge.close();
    if (this.pid > 0) killGroup(this.pid);
    await Promise.all([drained(this.child, STDERR_DRAIN_MS), this.killEscaped()]);
    this.stderr.end();
    this.logRate.close();
    this.protocolLog.close();
    // Unpiped first: a grandchild may still write to stdout, and writing to an ended stream is an error.
    this.child.stdout.unpipe(input);
    input.end();
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    this.child.stdin.destroy();
    if (!this.launched) return;
    try {
      this.opts.onExit({ code, signal, stderrTail: this.stderr.tail(), expected: this.stopping !== undefined });
    } catch (err) {
      this.opts.log.error(`handling the exit of plugin "${name}" failed: ${errorMessage(err)}`);
    }
  }

  /** What the plugin forked out of its process group (setsid) would outlive it: found by its marker, killed. */
  private async killEscaped(): Promise<void> {
    const { name, log } = this.opts;
    try {
      const pids = await killPluginTree(this.runId);
      if (pids.length > 0) {
        log.warn(
          `killed ${pids.length} process(es) plugin "${name}" left running outside its process group (pids ${pids.join(", ")})`,
        );
      }
    } catch (err) {
      log.warn(`cannot look for processes plugin "${name}" left running: ${errorMessage(err)}`);
    }
  }
}

interface Exit {
  code: number | null;
  signal: string | null;
  /** Set when the process could not be started at all. */
  spawnError?: string;
}

/** "exited (code 1)", "exited (killed by SIGKILL)", "could not be started: spawn ENOENT". */
function exitText(exit: Exit): string {
  if (exit.spawnError) return `could not be started: ${exit.spawnError}`;
  return `exited (${exit.signal ? `killed by ${exit.signal}` : `code ${exit.code}`})`;
}

/** Resolves when the child's stderr has ended, or after `ms`. */
function drained(child: PluginChild, ms: number): Promise<void> {
  if (child.stderr.readableEnded || child.stderr.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    child.stderr.once("end", done);
    function done() {
      clearTimeout(timer);
      child.stderr.off("end", done);
      resolve();
    }
  });
}
