/**
 * The Hono app: the middleware every request passes (request log, security headers, client address, Host
 * guard, auth) and the route groups in their fixed order. Kept apart from the listening socket (plugin.ts)
 * so the route table can be enumerated, e.g. by the test that proves every route needs credentials.
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono, type MiddlewareHandler } from "hono";
import { authMiddleware } from "./auth-middleware.js";
import type { RouteGroup, WebApp, WebDeps, WebEnv } from "./context.js";
import { installErrorHandlers } from "./errors.js";
import { hostGuard } from "./host-guard.js";
import { openaiRoutes } from "./openai/routes.js";
import { requestLog } from "./request-log.js";
import { adaptersRoutes } from "./routes/adapters.js";
import { approvalsRoutes } from "./routes/approvals.js";
import { chatRoutes } from "./routes/chat.js";
import { chatFileRoutes } from "./routes/chat-file.js";
import { eventsRoutes } from "./routes/events.js";
import { healthRoutes } from "./routes/health.js";
import { kernelRoutes } from "./routes/kernel.js";
import { knowledgeRoutes } from "./routes/knowledge.js";
import { mcpRoutes } from "./routes/mcp.js";
import { mcpServersRoutes } from "./routes/mcp-servers.js";
import { memoryRoutes } from "./routes/memory.js";
import { pluginsRoutes } from "./routes/plugins.js";
import { sessionRoutes } from "./routes/session.js";
import { settingsRoutes } from "./routes/settings.js";
import { statusRoutes } from "./routes/status.js";
import { transcriptsRoutes } from "./routes/transcripts.js";
import { uploadsRoutes } from "./routes/uploads.js";
import { workspaceRoutes } from "./routes/workspace.js";
import type { SseHub } from "./sse-hub.js";
import { webAssetRoutes } from "./web-assets.js";

export interface AppOptions {
  /** The bound address (host as configured, the real port). */
  listen: () => { host: string; port: number };
  allowedHosts: () => string[];
  requestLog: () => boolean;
  /** The event stream's hub (started and closed by the plugin's lifetime). */
  hub: SseHub;
  /** The built dashboard (default: the package's dist/web). */
  webRoot?: string;
  /** Runs right after auth; the connection gate learns there which connections have authenticated. */
  afterAuth?: MiddlewareHandler<WebEnv>;
}

export interface WebServerApp {
  app: WebApp;
  /** What the route groups need done at shutdown (e.g. ending streams), in registration order. */
  stops: Array<() => void | Promise<void>>;
}

/** Every route group, in the order they are added. */
function routeGroups(hub: SseHub, webRoot: string | undefined): RouteGroup[] {
  return [
    webAssetRoutes(webRoot),
    sessionRoutes,
    statusRoutes,
    settingsRoutes,
    knowledgeRoutes,
    adaptersRoutes,
    pluginsRoutes,
    kernelRoutes,
    healthRoutes,
    mcpServersRoutes,
    chatRoutes,
    chatFileRoutes,
    transcriptsRoutes,
    approvalsRoutes,
    workspaceRoutes,
    uploadsRoutes,
    memoryRoutes,
    eventsRoutes(hub),
    openaiRoutes,
    mcpRoutes,
  ];
}

export function createApp(deps: WebDeps, opts: AppOptions): WebServerApp {
  const app: WebApp = new Hono<WebEnv>();
  const { sdk } = deps;
  installErrorHandlers(app, (msg) => sdk.log.error(msg));
  app.use(
    "*",
    requestLog(opts.requestLog, (line) => sdk.log.info(line)),
  );
  app.use("*", headWithoutBody);
  app.use("*", securityHeaders);
  app.use("*", clientAddress);
  app.use("*", hostGuard({ listen: opts.listen, allowedHosts: opts.allowedHosts }));
  app.use(
    "*",
    authMiddleware(() => sdk.auth),
  );
  if (opts.afterAuth) app.use("*", opts.afterAuth);
  const stops: WebServerApp["stops"] = [];
  for (const group of routeGroups(opts.hub, opts.webRoot)) {
    const stop = group(app, deps);
    if (stop) stops.push(stop);
  }
  return { app, stops };
}

/**
 * Hono answers HEAD with the GET route and drops the body unread. Cancelling it releases at once what the
 * handler opened for it: a file being served, an event-stream slot (else 64 HEADs would fill them all).
 */
const headWithoutBody: MiddlewareHandler<WebEnv> = async (c, next) => {
  await next();
  if (c.req.method !== "HEAD" || !c.res.body) return;
  await c.res.body.cancel().catch(() => {});
  c.res = new Response(null, c.res);
};

/** Set after the handler, so error pages, streams and static assets all carry them. */
const securityHeaders: MiddlewareHandler<WebEnv> = async (c, next) => {
  await next();
  const headers = c.res.headers;
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "no-referrer");
  headers.set("X-Frame-Options", "DENY");
  if (!headers.has("Content-Security-Policy")) headers.set("Content-Security-Policy", "default-src 'self'");
  // API answers hold the user's data: no cache (a shared proxy's included) may keep them.
  if (isApiPath(c.req.path) && !headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
};

function isApiPath(path: string): boolean {
  return path.startsWith("/api/") || path.startsWith("/v1/");
}

const clientAddress: MiddlewareHandler<WebEnv> = async (c, next) => {
  c.set("authKind", "none");
  c.set("clientAddress", getConnInfo(c).remote.address ?? "unknown");
  await next();
};
