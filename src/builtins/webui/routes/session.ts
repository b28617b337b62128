/**
 * Login, logout and the current session. A login answers the CSRF token in its body (the cookie itself
 * is HttpOnly) so the page can send it with every write, and the time zone the page shows dates in; the per-address limit and the failure message
 * come from the daemon's auth module, which never says whether the user name or the password was wrong.
 */

import { homedir } from "node:os";
import type { PluginSDK } from "@homeagent/sdk";
import { liveSession, sessionCookieHeader } from "../auth-middleware.js";
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { MAX_LOGIN_BODY_BYTES } from "../limits.js";
import { sdkCall } from "../sdk-errors.js";

/** Longer user names or passwords are not ones the daemon made; refuse them before hashing anything. */
const MAX_CREDENTIAL_CHARS = 1024;

export const sessionRoutes: RouteGroup = (app, { sdk, sessionStreams }) => {
  app.post("/api/v1/login", async (c) => {
    const body = await readJson(c, MAX_LOGIN_BODY_BYTES);
    const username = credential(body.username, "username");
    const password = credential(body.password, "password");
    const session = await sdkCall(() => sdk.auth.login(username, password, c.get("clientAddress")));
    c.header("Set-Cookie", sessionCookieHeader(session.id, Math.round((session.expiresAt - Date.now()) / 1000)));
    return c.json({ user: session.user, csrf: session.csrf, expiresAt: session.expiresAt, timeZone: timeZone(sdk) });
  });

  // Open: what the login page asks before showing its form, so that it never meets a 401 of its own.
  // The file's path only to this machine: it names folders (and perhaps a user) a stranger need not know.
  app.get("/api/v1/login", (c) =>
    c.json({
      loggedIn: liveSession(c, sdk.auth) !== null,
      credentialsFile: isLoopback(c.get("clientAddress")) ? shownPath(sdk.auth.credentialsFile()) : null,
    }),
  );

  app.get("/api/v1/session", (c) => {
    const session = c.get("session");
    return c.json({
      user: session?.user ?? null,
      csrf: session?.csrf ?? null,
      expiresAt: session?.expiresAt ?? null,
      authKind: c.get("authKind"),
      timeZone: timeZone(sdk),
    });
  });

  app.post("/api/v1/logout", (c) => {
    const session = c.get("session");
    const ended = session ? sdk.auth.logout(session.id) : false;
    // Its event streams and streaming completions end now, not at their next heartbeat.
    if (session) sessionStreams?.end(session.id);
    c.header("Set-Cookie", sessionCookieHeader("", 0));
    return c.json({ loggedOut: ended });
  });
  return undefined;
};

/**
 * The zone every date the user reads is in (core.agent.timezone, as the model reads them; empty = the
 * daemon's system zone), so the dashboard shows the same dates the agent sees wherever the browser is.
 */
function timeZone(sdk: PluginSDK): string {
  const chosen = sdk.config.list("core.agent.timezone").find((e) => e.key === "core.agent.timezone")?.value;
  if (chosen) {
    try {
      return new Intl.DateTimeFormat("en", { timeZone: chosen }).resolvedOptions().timeZone;
    } catch {
      // Not a zone this runtime knows: the agent reads its dates in the system zone then, and so does the page.
    }
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (/^127\./.test(address) || address === "::1" || /^::ffff:127\./.test(address));
}

/** A path as the user knows it: under the home folder as ~/…, so the page names no user's home directory. */
function shownPath(path: string): string {
  const home = homedir();
  return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function credential(value: unknown, name: string): string {
  if (typeof value !== "string" || value === "") {
    throw new ApiError(400, "invalid_body", `"${name}" must be a non-empty string`);
  }
  if (value.length > MAX_CREDENTIAL_CHARS) {
    throw new ApiError(400, "invalid_body", `"${name}" is longer than ${MAX_CREDENTIAL_CHARS} characters`);
  }
  return value;
}
