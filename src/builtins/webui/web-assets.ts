/**
 * Serves the dashboard built by Vite (dist/web): index.html for `/`, `/login` and the client's own page
 * paths, never cached so a new build is picked up at once; the hashed files under /assets/ cached for a
 * year (their names change with their content). Every HTML answer carries the dashboard's CSP: scripts,
 * styles and connections from this origin only, nothing inline. Without a build, `/` says how to make one.
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context } from "hono";
import { ApiError, type RouteGroup, type WebEnv } from "./context.js";

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

export const IMMUTABLE = "public, max-age=31536000, immutable";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
};

/** Asset names Vite writes: letters, digits, `-`, `_`, `.`, in subfolders at most. */
const SAFE_ASSET = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
/** Paths that belong to the server, never to the dashboard's client-side pages. */
const SERVER_PREFIXES = ["/api/", "/v1/", "/uploads/", "/assets/"];

const NOT_BUILT_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>HomeAgent — dashboard not built</title></head>
<body>
<main>
<h1>HomeAgent</h1>
<p>The daemon is running, but the web dashboard has not been built: there is no <code>dist/web/index.html</code>.
Run <code>npm run build</code> (or <code>npm install</code>, which builds it) in the HomeAgent folder, then reload.</p>
<p>The HTTP API works without it: <code>/api/v1/</code> and <code>/v1/chat/completions</code>.</p>
</main>
</body>
</html>
`;

/** The group for app.ts; `webRoot` defaults to the package's dist/web. */
export function webAssetRoutes(webRoot: string = defaultWebRoot()): RouteGroup {
  const root = resolve(webRoot);
  const assets = join(root, "assets");
  return (app) => {
    const page = () => indexPage(root);
    app.get("/", page);
    app.get("/login", page);
    app.get("/assets/*", (c) => assetFile(c, assets));
    // A browser reloading a client-side page path asks for HTML; unknown paths still 404 for everyone else.
    app.use("/*", async (c, next) => {
      await next();
      if (c.res.status === 404 && isPageRequest(c)) c.res = await indexPage(root);
    });
    return undefined;
  };
}

function isPageRequest(c: Context<WebEnv>): boolean {
  const { method, path } = c.req;
  if (method !== "GET" && method !== "HEAD") return false;
  if (SERVER_PREFIXES.some((p) => path.startsWith(p)) || extname(path) !== "") return false;
  return (c.req.header("accept") ?? "").includes("text/html");
}

async function indexPage(root: string): Promise<Response> {
  let html: string;
  try {
    html = await readFile(join(root, "index.html"), "utf8");
  } catch {
    return htmlResponse(NOT_BUILT_HTML, 503);
  }
  return htmlResponse(html, 200);
}

function htmlResponse(html: string, status: number): Response {
  return new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
      "Content-Security-Policy": DASHBOARD_CSP,
    },
  });
}

async function assetFile(c: Context<WebEnv>, assets: string): Promise<Response> {
  const name = assetName(c.req.path.slice("/assets/".length));
  const file = name === null ? null : resolve(assets, name);
  if (file === null || !file.startsWith(assets + sep)) throw notFound(c.req.path);
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    throw notFound(c.req.path);
  }
  return new Response(new Uint8Array(body), {
    headers: {
      "Content-Type": TYPES[extname(file).toLowerCase()] ?? "application/octet-stream",
      "Cache-Control": IMMUTABLE,
      "Content-Length": String(body.length),
    },
  });
}

/**
 * The decoded asset name when it is one Vite could have written; null for anything else. No segment may
 * start with a dot, so `..` (plain or percent-encoded) never gets past it.
 */
function assetName(raw: string): string | null {
  try {
    const name = decodeURIComponent(raw);
    return SAFE_ASSET.test(name) ? name : null;
  } catch {
    return null;
  }
}

function notFound(path: string): ApiError {
  return new ApiError(404, "not_found", `there is no ${path.slice(0, 200)} in this build of the dashboard`);
}

/**
 * dist/web of the package this file belongs to: the first folder upwards (from src/builtins/webui or
 * dist/builtins/webui) whose package.json is HomeAgent's.
 */
export function defaultWebRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (isHomeAgentRoot(dir)) return join(dir, "dist", "web");
    if (dirname(dir) === dir) return join(from, "dist", "web");
  }
}

function isHomeAgentRoot(dir: string): boolean {
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) return false;
  try {
    return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "homeagent";
  } catch {
    return false;
  }
}
