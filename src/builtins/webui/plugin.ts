/**
 * Built-in `webui` plugin: the HTTP server (Hono on @hono/node-server) through which the browser and other
 * programs reach the daemon — the /api/v1 routes, the SSE event stream and the OpenAI-compatible
 * endpoint. It reaches the agent only through the public SDK; the listening socket lives here, the routes
 * in app.ts.
 */
import type { AddressInfo } from "node:net";
import { definePlugin, type Plugin, type PluginSDK } from "@homeagent/sdk";
import { createAdaptorServer } from "@hono/node-server";
import { createApp } from "./app.js";
import { CHAT_CHANNEL, chatRunner } from "./chat-runner.js";
import { ConnectionGate, type GateClock } from "./connection-gate.js";
import type { WebDeps, WebLimits } from "./context.js";
import { webuiForget } from "./forget.js";
import { parseAllowedHosts } from "./host-guard.js";
import { DEFAULT_LIMITS, MAX_CONNECTIONS, resolveLimits, type ServerTimeouts, serverTimeouts } from "./limits.js";
import { isLoopback, type ListenAddress, listen, parseListenAddress } from "./listen.js";
import { WEBUI_SETTINGS } from "./settings-defs.js";
import { SseHub } from "./sse-hub.js";
import { SessionStreams } from "./sse-sessions.js";
import { uploadsDir } from "./upload-store.js";

export interface WebuiPluginOptions {
  /** Used instead of `plugin.webui.listen_addr` (tests listen on "127.0.0.1:0"). */
  listenAddr?: string;
  /** Overrides of the limits (tests shrink them). */
  limits?: Partial<WebLimits>;
  /** Overrides of the server's timeouts (tests shrink them). */
  timeouts?: Partial<ServerTimeouts>;
  /** The built dashboard to serve (tests pass their own); default the package's dist/web. */
  webRoot?: string;
  /** Runs the connection gate's first-request deadlines; default the system clock (tests move time by hand). */
  clock?: GateClock;
}

export interface WebuiPlugin extends Plugin {
  /** Where the server listens (host as configured, the real port); null while it is not listening. */
  address(): ListenAddress | null;
  /** Every route the app registered (middleware included as method "ALL"); empty while not running. */
  routes(): Array<{ method: string; path: string }>;
}

type ServerHandle = Awaited<ReturnType<typeof listen>>;

export function createWebuiPlugin(opts: WebuiPluginOptions = {}): WebuiPlugin {
  let server: ServerHandle | null = null;
  let bound: ListenAddress | null = null;
  let routes: Array<{ method: string; path: string }> = [];
  let stops: Array<() => void | Promise<void>> = [];

  const plugin = definePlugin({
    name: "webui",

    async start(sdk: PluginSDK): Promise<void> {
      sdk.settings.define(WEBUI_SETTINGS);
      const configured = opts.listenAddr ?? sdk.settings.get("listen_addr") ?? "127.0.0.1:8080";
      const address = parseListenAddress(configured);
      const limits = resolveLimits(resolveLimits(DEFAULT_LIMITS, { uploadQuotaBytes: uploadQuota(sdk) }), opts.limits);
      const hub = new SseHub(sdk, limits, (count) => sdk.approvals.setClients(CHAT_CHANNEL, count));
      const deps: WebDeps = {
        sdk,
        limits,
        startedAt: Date.now(),
        sseStats: () => hub.stats(),
        sessionStreams: new SessionStreams(),
      };
      const timeouts = serverTimeouts(limits, opts.timeouts);
      const gate = new ConnectionGate(
        { maxPreAuth: limits.maxPreAuthConnections, firstHeadersMs: timeouts.firstHeadersMs },
        opts.clock,
      );
      const web = createApp(deps, {
        listen: () => bound ?? address,
        allowedHosts: () => parseAllowedHosts(sdk.settings.get("allowed_hosts")),
        requestLog: () => sdk.settings.get("request_log") !== "false",
        hub,
        webRoot: opts.webRoot,
        afterAuth: gate.afterAuth,
      });
      stops = web.stops;
      hub.start();
      sdk.onForget(webuiForget({ uploadsDir: uploadsDir(sdk.daemonDataDir), hub, runner: chatRunner(deps) }));
      const node = createAdaptorServer({
        fetch: web.app.fetch,
        serverOptions: {
          headersTimeout: timeouts.headersMs,
          requestTimeout: timeouts.requestMs,
          connectionsCheckingInterval: timeouts.checkMs,
        },
      });
      node.maxConnections = MAX_CONNECTIONS;
      gate.attach(node);
      // Without a "timeout" listener, Node destroys a socket idle for this long.
      node.setTimeout(timeouts.idleMs);
      server = await listen(node, address);
      const port = (server.address() as AddressInfo).port;
      bound = { host: address.host, port };
      routes = web.app.routes.map((r) => ({ method: r.method, path: r.path }));
      const url = `http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${port}`;
      sdk.log.info(`listening on ${url}`);
      if (!isLoopback(address.host)) {
        sdk.log.warn(
          `plugin.webui.listen_addr is ${configured}, which other machines can reach; every route needs the API key or a login, but put HTTPS (a reverse proxy) in front for remote use and list the names clients use in plugin.webui.allowed_hosts`,
        );
      }
    },

    /** Streams end first (their route groups' stops), then every open connection is cut. */
    async stop(): Promise<void> {
      const running = server;
      server = null;
      bound = null;
      routes = [];
      try {
        for (const stop of stops.splice(0)) await stop();
      } finally {
        await running?.shutdown();
      }
    },
  });

  return Object.assign(plugin, { address: () => bound, routes: () => routes });
}

function uploadQuota(sdk: PluginSDK): number {
  const mb = Number(sdk.settings.get("upload_quota_mb") ?? "1024");
  return Number.isFinite(mb) && mb >= 0 ? mb * 1024 * 1024 : DEFAULT_LIMITS.uploadQuotaBytes;
}
