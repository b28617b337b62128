/**
 * Built-in `cli` plugin: the local Unix-socket front door used by `waiter`. It speaks the line protocol of
 * @homeagent/cli-protocol and reaches the agent only through the public SDK.
 */
import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { definePlugin, type Plugin, type PluginSDK } from "@homeagent/sdk";
import { CLI_CHANNEL } from "./cli-channel.js";
import { closeWithFrame } from "./closing.js";
import { CliConnection, type ConnectionStats } from "./connection.js";
import { RequestEvents } from "./events.js";
import { InteractiveClients } from "./interactive.js";
import { type CliLimits, DEFAULT_LIMITS, idleEvictedText, tooManyConnectionsText } from "./limits.js";
import { listenPrivate } from "./socket.js";

export interface CliPluginOptions extends Partial<CliLimits> {
  /** Default `<daemon data dir>/cli.sock`. */
  socketPath?: string;
}

/** What the plugin holds right now; a client that has gone leaves nothing in it. */
export interface CliStats {
  connections: ConnectionStats[];
  /** Running messages whose progress events are routed to a client. */
  watchers: number;
}

export interface CliPlugin extends Plugin {
  stats(): CliStats;
}

export function createCliPlugin(opts: CliPluginOptions = {}): CliPlugin {
  const { socketPath: configuredPath, ...overrides } = opts;
  const limits: CliLimits = { ...DEFAULT_LIMITS, ...definedOnly(overrides) };
  const events = new RequestEvents();
  const connections = new Set<CliConnection>();
  // Every accepted socket, refused ones included, so that stop() can cut off whatever is left.
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let socketPath = "";
  let unsubscribe = (): void => {};
  let atCapacity = false;
  let interactive: InteractiveClients | null = null;

  const accept = (sdk: PluginSDK, clients: InteractiveClients, socket: Socket): void => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    if (connections.size >= limits.maxConnections) makeRoom(sdk);
    if (connections.size >= limits.maxConnections) {
      if (!atCapacity) sdk.log.warn(`cli: ${limits.maxConnections} connections open; refusing more until some close`);
      atCapacity = true;
      closeWithFrame(
        socket,
        { type: "error", error: tooManyConnectionsText(limits.maxConnections) },
        limits.closeGraceMs,
      );
      return;
    }
    const connection = new CliConnection(socket, sdk, events, limits, clients);
    connections.add(connection);
    socket.once("close", () => {
      connections.delete(connection);
      if (connections.size < limits.maxConnections) atCapacity = false;
    });
  };

  /**
   * At the cap, the connection idle the longest makes room, so leftover idle connections (no key is needed
   * to hold one) cannot lock every client out. A waiter at its prompt is only closed when the cap is
   * reached and every other connection was active more recently; it then shows the notice.
   */
  const makeRoom = (sdk: PluginSDK): void => {
    const now = performance.now();
    let oldest: { connection: CliConnection; since: number } | undefined;
    for (const connection of connections) {
      const since = connection.idleSince();
      if (since === undefined || now - since < limits.idleEvictAfterMs) continue;
      if (!oldest || since < oldest.since) oldest = { connection, since };
    }
    if (!oldest) return;
    // Out of the count at once; closeWithFrame bounds how long its socket may linger.
    connections.delete(oldest.connection);
    oldest.connection.evict(idleEvictedText(limits.maxConnections));
    sdk.log.info(
      `cli: ${limits.maxConnections} connections open; closed the cli connection idle the longest (${Math.round((now - oldest.since) / 1000)} s) to make room`,
    );
  };

  const plugin = definePlugin({
    name: "cli",

    async start(sdk: PluginSDK): Promise<void> {
      socketPath = configuredPath ?? cliSocketPath(sdk.daemonDataDir);
      const clients = new InteractiveClients(sdk);
      interactive = clients;
      sdk.registerOutputChannel(
        CLI_CHANNEL,
        ["text"],
        "the user's terminal (waiter): shown at once in every open interactive waiter, else kept for the next one",
        clients.deliver,
      );
      // Half-open: a client that ends its input after sending still gets its answers.
      const listening = createServer({ allowHalfOpen: true }, (socket) => accept(sdk, clients, socket));
      await listenPrivate(listening, socketPath);
      server = listening;
      const offEvents = sdk.subscribe("*", events.handle);
      const offApprovals = sdk.subscribe("approval", clients.onApproval);
      unsubscribe = () => {
        offEvents();
        offApprovals();
      };
      sdk.log.info(`cli: listening on ${socketPath}`);
    },

    /**
     * Each client gets what is already answered (the kernel stops first and answers every waiting message
     * with its reason), then a last "homed is shutting down" frame; a client that does not take it within
     * the grace period is cut off.
     */
    async stop(): Promise<void> {
      if (!server) return;
      const closing = server;
      server = null;
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
      await Promise.all([...connections].map((c) => c.shutdown()));
      for (const socket of sockets) socket.destroy();
      await closed;
      unsubscribe();
      unsubscribe = () => {};
      interactive?.clear();
      rmSync(socketPath, { force: true });
    },
  });

  return Object.assign(plugin, {
    stats: (): CliStats => ({ connections: [...connections].map((c) => c.stats()), watchers: events.size }),
  });
}

/** `{ maxConnections: undefined }` must not wipe out the default. */
function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
