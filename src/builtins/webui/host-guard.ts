/**
 * DNS-rebinding guard: a page on an attacker's domain that resolves to 127.0.0.1 can make the browser
 * send requests here, but with its own name in `Host`. Only the listen address, the loopback names on our
 * port and the names the user allowed (`plugin.webui.allowed_hosts`) are answered.
 */
import type { MiddlewareHandler } from "hono";
import { ApiError, type WebEnv } from "./context.js";

export interface HostGuardOptions {
  /** The address the server is bound to (host as configured, real port). */
  listen: () => { host: string; port: number };
  /** Extra names: `name` (any port) or `name:port`. Read on each request, so a change applies at once. */
  allowedHosts: () => string[];
}

export function hostGuard(opts: HostGuardOptions): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const host = (c.req.header("host") ?? "").trim().toLowerCase();
    if (!isAllowedHost(host, opts.listen(), opts.allowedHosts())) {
      throw new ApiError(
        403,
        "host_not_allowed",
        `requests for host "${host.slice(0, 200)}" are refused; add it to plugin.webui.allowed_hosts if you reach the server by that name`,
      );
    }
    await next();
  };
}

export function isAllowedHost(host: string, listen: { host: string; port: number }, extra: string[]): boolean {
  if (host === "") return false;
  const port = String(listen.port);
  const exact = new Set([
    `${bracketed(listen.host)}:${port}`,
    `localhost:${port}`,
    `127.0.0.1:${port}`,
    `[::1]:${port}`,
  ]);
  if (exact.has(host)) return true;
  const name = hostName(host);
  for (const entry of extra) {
    const allowed = entry.trim().toLowerCase();
    if (allowed === "") continue;
    if (allowed === host || (!hasPort(allowed) && allowed === name)) return true;
  }
  return false;
}

/** The comma list of `plugin.webui.allowed_hosts`. */
export function parseAllowedHosts(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host.toLowerCase()}]` : host.toLowerCase();
}

function hasPort(host: string): boolean {
  return /:\d+$/.test(host) && (!host.startsWith("[") || host.includes("]:"));
}

function hostName(host: string): string {
  return hasPort(host) ? host.slice(0, host.lastIndexOf(":")) : host;
}
