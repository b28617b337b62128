/**
 * Built-in `cli` plugin: the local Unix-socket front door used by `waiter`. It speaks the line protocol in
 * protocol.ts and reaches the agent only through the public SDK.
 */
import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { definePlugin, type Plugin, type PluginSDK } from "@homeagent/sdk";
import { RequestEvents } from "./events.js";
import { serveConnection } from "./session.js";
import { listenPrivate } from "./socket.js";

export interface CliPluginOptions {
  /** Default `<daemon data dir>/cli.sock`. */
  socketPath?: string;
}

export function createCliPlugin(opts: CliPluginOptions = {}): Plugin {
  let server: Server | null = null;
  let socketPath = "";
  let unsubscribe = (): void => {};
  const sockets = new Set<Socket>();

  return definePlugin({
    name: "cli",

    async start(sdk: PluginSDK): Promise<void> {
      socketPath = opts.socketPath ?? join(sdk.daemonDataDir, "cli.sock");
      const events = new RequestEvents();
      const listening = createServer((socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        serveConnection(socket, sdk, events);
      });
      await listenPrivate(listening, socketPath);
      server = listening;
      unsubscribe = sdk.subscribe("*", events.handle);
      sdk.log.info(`cli: listening on ${socketPath}`);
    },

    async stop(): Promise<void> {
      unsubscribe();
      if (!server) return;
      const closing = server;
      server = null;
      // Destroy rather than end: a client that never closes its side must not hold up shutdown.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => closing.close(() => resolve()));
      rmSync(socketPath, { force: true });
    },
  });
}
