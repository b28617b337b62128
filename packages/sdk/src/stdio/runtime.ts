/**
 * The plugin side of the subprocess protocol (docs/plugin-protocol.md): answers the daemon's handshake,
 * init, start and stop, hands tool/stage/output/cleaner/forget calls and events to what the plugin registered,
 * and ends the process when the daemon says stop, closes stdin, or dies. The plugin itself is the same
 * object definePlugin makes for an in-process plugin.
 */
import { readFileSync } from "node:fs";
import type { Plugin } from "../index.js";
import { PROTOCOL_VERSION } from "../protocol/index.js";
import { RpcPeer } from "../protocol/peer.js";
import { RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, RpcError } from "../protocol/rpc-error.js";
import { deliverEvent, invokeCleaner, invokeForget, invokeOutput, invokeStage, invokeTool } from "./invoke.js";
import { createProxySdk, type InitParams, type ProxySession } from "./sdk-proxy.js";
import { guardStdout } from "./stdout-guard.js";
import { startParentWatchdog } from "./watchdog.js";

/** A Plugin from definePlugin, or a plain `{name, start, stop}`. */
export type StdioPlugin = Pick<Plugin, "name" | "start"> & { stop?(): void | Promise<void> };

export interface StdioIO {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Ends the process once the session is over; default `process.exit`. */
  exit?: (code: number) => void;
}

/** This package's version, reported in the handshake (src/stdio and dist/stdio are both two levels down). */
export const SDK_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** How long the answer to plugin.stop may take to reach the daemon before the process exits anyway. */
const FLUSH_MS = 2000;

/**
 * Serves `plugin` over `io` (the process's stdin/stdout by default) until the daemon stops it or goes
 * away; resolves with the exit code given to `io.exit`.
 */
export function runStdioPlugin(
  plugin: StdioPlugin,
  io: StdioIO = { input: process.stdin, output: process.stdout },
): Promise<number> {
  if (io.output === process.stdout) {
    guardStdout();
    startParentWatchdog();
  }
  let session: ProxySession | undefined;
  let started = false;
  let ending = false;
  let resolveEnded: (code: number) => void = () => {};
  const ended = new Promise<number>((resolve) => {
    resolveEnded = resolve;
  });

  const end = (code: number) => {
    if (ending) return;
    ending = true;
    resolveEnded(code);
    (io.exit ?? ((c: number) => process.exit(c)))(code);
  };
  const endAfterFlush = () => {
    setTimeout(() => end(0), FLUSH_MS);
    io.output.write("", () => end(0));
  };
  const report = (msg: string) => {
    if (session) peer.notify("core.log.warn", [msg]);
    else process.stderr.write(`${msg}\n`);
  };
  const need = (method: string): ProxySession => {
    if (!session) throw new RpcError(RPC_INVALID_REQUEST, `${method} came before plugin.init`);
    return session;
  };

  const start = async (): Promise<object> => {
    const current = need("plugin.start");
    if (started) throw new RpcError(RPC_INVALID_REQUEST, "plugin.start came twice");
    started = true;
    await plugin.start(current.sdk);
    await current.settle();
    return {};
  };

  const stop = async (): Promise<object> => {
    try {
      await plugin.stop?.();
      return {};
    } finally {
      // After the answer is written: the peer writes it once this promise settles.
      setImmediate(endAfterFlush);
    }
  };

  const peer: RpcPeer = new RpcPeer({
    input: io.input,
    output: io.output,
    onRequest: (method, params, ctx) => {
      switch (method) {
        case "handshake":
          // A daemon that reads attachments says so; ours are then sent to it as such (older daemons never see one).
          peer.sendAttachments = (params as { attachments?: unknown } | undefined)?.attachments === true;
          return {
            protocol: PROTOCOL_VERSION,
            sdkVersion: SDK_VERSION,
            pluginName: plugin.name,
            pid: process.pid,
            attachments: true,
          };
        case "plugin.init":
          session = createProxySdk(peer, initParams(params));
          return {};
        case "plugin.start":
          return start();
        case "plugin.stop":
          return stop();
        case "tool.invoke":
          return invokeTool(need(method).handlers, params, ctx);
        case "stage.invoke":
          return invokeStage(need(method).handlers, params, ctx);
        case "output.invoke":
          return invokeOutput(need(method).handlers, params, ctx);
        case "cleaner.invoke":
          return invokeCleaner(need(method).handlers, params);
        case "forget.invoke":
          return invokeForget(need(method).handlers, params, ctx);
        default:
          throw new RpcError(RPC_METHOD_NOT_FOUND, `plugin "${plugin.name}" does not serve ${method}`);
      }
    },
    onNotification: (method, params) => {
      if (method === "event.deliver" && session) deliverEvent(session.handlers, params, report);
      if (method === "settings.changed" && session) settingChanged(session, params);
    },
    onProtocolError: (msg) => process.stderr.write(`plugin protocol: ${msg}\n`),
  });

  io.input.on("end", () => end(0));
  io.output.on("error", () => end(1));
  return ended;
}

/** `{key, value}` of the plugin's own settings; anything else is ignored (a notification has no answer). */
function settingChanged(session: ProxySession, raw: unknown): void {
  const p = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  if (typeof p.key === "string" && typeof p.value === "string") session.settingChanged(p.key, p.value);
}

function initParams(raw: unknown): InitParams {
  const p = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  for (const key of ["name", "dataDir", "daemonDataDir"]) {
    if (typeof p[key] !== "string") throw new RpcError(RPC_INVALID_PARAMS, `plugin.init needs a string "${key}"`);
  }
  const settings = p.settings ?? {};
  if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
    throw new RpcError(RPC_INVALID_PARAMS, 'plugin.init "settings" must be an object of strings');
  }
  return {
    name: p.name as string,
    dataDir: p.dataDir as string,
    daemonDataDir: p.daemonDataDir as string,
    capabilities: Array.isArray(p.capabilities) ? p.capabilities.map(String) : ["core"],
    settings: Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, String(v)])),
  };
}
