/**
 * The one auth model over real HTTP: every registered route needs credentials (enumerated from the app,
 * so routes added later are covered too), keys and Bearer tokens, the login cookie and its attributes,
 * CSRF on cookie writes, logout, and the login limit.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AuthAPI, AuthSession } from "@homeagent/sdk";
import { Hono } from "hono";
import { startWebDaemon, TEST_API_KEY, type WebDaemon } from "../../../test/fixtures/webui.js";
import { authMiddleware, isPublicRoute } from "./auth-middleware.js";
import type { WebEnv } from "./context.js";
import { installErrorHandlers } from "./errors.js";

/** The zone the session names when core.agent.timezone is empty: the daemon's system zone. */
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

let w: WebDaemon;
before(async () => {
  w = await startWebDaemon();
});
after(() => w.stop());

/** A concrete path for a route pattern: parameters and wildcards become "x". */
function concrete(path: string): string {
  return path
    .split("/")
    .map((s) => (s.startsWith(":") || s === "*" ? "x" : s))
    .join("/");
}

function login(password = w.password, username = "admin"): Promise<Response> {
  return fetch(`${w.base}/api/v1/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
}

describe("every route needs credentials", () => {
  test("each registered route answers 401 without credentials, except the login page, its assets, the login info and the login call", async () => {
    const routes = w.webui().routes();
    const methods = new Set(routes.map((r) => r.method));
    assert.ok(routes.length >= 20, `the app registers its routes (got ${routes.length})`);
    assert.ok(methods.has("GET") && methods.has("POST") && methods.has("PUT") && methods.has("DELETE"));
    const open: string[] = [];
    for (const route of routes) {
      const tried = route.method === "ALL" ? ["GET", "POST", "PUT", "DELETE"] : [route.method];
      for (const method of tried) {
        const path = concrete(route.path);
        if (isPublicRoute(method, path)) {
          open.push(`${method} ${route.path}`);
          continue;
        }
        const res = await fetch(w.base + path, {
          method,
          headers: { "Content-Type": "application/json" },
          body: method === "GET" ? undefined : "{}",
        });
        const text = await res.text();
        assert.equal(res.status, 401, `${method} ${route.path} → ${res.status} ${text.slice(0, 200)}`);
        assert.equal(res.headers.get("www-authenticate"), "Bearer", `${method} ${route.path}`);
        if (path !== "/") assert.equal(JSON.parse(text).error.code, "unauthorized", `${method} ${route.path}`);
      }
    }
    for (const entry of open) {
      assert.match(entry, /^(GET \/login|GET \/assets\/.+|(GET|POST) \/api\/v1\/login)$/, `${entry} is open`);
    }
    assert.ok(open.includes("GET /login") && open.includes("POST /api/v1/login"), open.join(", "));
  });

  test("the public list itself is exactly the login page, assets, the login info and login (HEAD counts as GET)", () => {
    assert.ok(isPublicRoute("GET", "/login"));
    assert.ok(isPublicRoute("HEAD", "/assets/login.js"));
    assert.ok(isPublicRoute("POST", "/api/v1/login"));
    assert.ok(!isPublicRoute("POST", "/login"));
    assert.ok(isPublicRoute("GET", "/api/v1/login"));
    assert.ok(!isPublicRoute("GET", "/api/v1/loginx"));
    assert.ok(!isPublicRoute("GET", "/api/v1/session"));
    assert.ok(!isPublicRoute("PUT", "/assets/x"));
    assert.ok(!isPublicRoute("GET", "/loginx"));
  });

  test("a wrong key, a wrong Bearer token or an unknown session cookie is 401", async () => {
    const tries: Record<string, string>[] = [
      { "X-API-Key": "nope" },
      { "X-API-Key": "" },
      { Authorization: "Bearer nope" },
      { Authorization: "Basic YWRtaW46eA==" },
      { Cookie: "homeagent_session=forged" },
    ];
    for (const headers of tries) {
      const res = await fetch(`${w.base}/api/v1/status`, { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, "unauthorized");
    }
  });

  test("the key works as X-API-Key and as a Bearer token", async () => {
    const ways: Record<string, string>[] = [{ "X-API-Key": TEST_API_KEY }, { Authorization: `Bearer ${TEST_API_KEY}` }];
    for (const headers of ways) {
      const res = await fetch(`${w.base}/api/v1/session`, { headers });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { user: null, csrf: null, expiresAt: null, authKind: "key", timeZone: ZONE });
    }
  });
});

describe("login sessions", () => {
  test("the login page's first questions never meet a 401: a browser at / is sent to /login, the login info is open", async () => {
    const page = await fetch(`${w.base}/`, { headers: { Accept: "text/html" }, redirect: "manual" });
    assert.equal(page.status, 303);
    assert.equal(page.headers.get("location"), "/login");
    assert.equal((await fetch(`${w.base}/`)).status, 401, "a client that does not ask for HTML is still told 401");
    const info = await fetch(`${w.base}/api/v1/login`);
    assert.equal(info.status, 200);
    assert.deepEqual(await info.json(), { loggedIn: false, credentialsFile: join(w.daemon.paths.root, "credentials") });
  });

  test("a login sets an HttpOnly, SameSite=Strict, 24 h cookie and answers the CSRF token", async () => {
    const res = await login();
    assert.equal(res.status, 200);
    const body = (await res.json()) as { user: string; csrf: string; expiresAt: number };
    assert.equal(body.user, "admin");
    assert.ok(body.csrf.length >= 16);
    assert.ok(Math.abs(body.expiresAt - (Date.now() + 86_400_000)) < 60_000);
    const cookie = res.headers.get("set-cookie") ?? "";
    const [pair, ...attributes] = cookie.split(";").map((s) => s.trim());
    assert.match(pair, /^homeagent_session=[A-Za-z0-9_-]{20,}$/);
    assert.deepEqual(attributes.sort(), ["HttpOnly", "Max-Age=86400", "Path=/", "SameSite=Strict"]);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const info = await fetch(`${w.base}/api/v1/login`, { headers: { Cookie: pair } });
    assert.equal(((await info.json()) as { loggedIn: boolean }).loggedIn, true, "the login info knows the session");
    const session = await fetch(`${w.base}/api/v1/session`, { headers: { Cookie: pair } });
    assert.deepEqual(await session.json(), {
      user: "admin",
      csrf: body.csrf,
      expiresAt: body.expiresAt,
      authKind: "session",
      timeZone: ZONE,
    });
  });

  test("cookie writes need the session's CSRF token; reads do not; key writes do not", async () => {
    const { cookie, csrf } = await w.login();
    const put = (headers: Record<string, string>) =>
      fetch(`${w.base}/api/v1/settings`, {
        method: "PUT",
        headers: { "Content-Type": "application/json", ...headers },
        body: JSON.stringify({ key: "core.agent.max_tool_turns", value: "9" }),
      });
    const refused: Record<string, string>[] = [{ Cookie: cookie }, { Cookie: cookie, "X-CSRF-Token": "wrong" }];
    for (const headers of refused) {
      const res = await put(headers);
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, "csrf_failed");
    }
    const other = await w.login();
    assert.equal((await put({ Cookie: cookie, "X-CSRF-Token": other.csrf })).status, 403, "another session's token");
    assert.equal((await put({ Cookie: cookie, "X-CSRF-Token": csrf })).status, 200);
    assert.equal((await fetch(`${w.base}/api/v1/status`, { headers: { Cookie: cookie } })).status, 200);
    assert.equal((await put({ "X-API-Key": TEST_API_KEY })).status, 200);
  });

  test("a cookie another localhost port planted, sent first, does not log the user out", async () => {
    const { cookie } = await w.login();
    const planted = `homeagent_session=planted-by-another-port; ${cookie}`;
    assert.equal((await fetch(`${w.base}/api/v1/status`, { headers: { Cookie: planted } })).status, 200);
    const session = await fetch(`${w.base}/api/v1/session`, { headers: { Cookie: planted } });
    assert.equal(((await session.json()) as { authKind: string }).authKind, "session");
    const forged = await fetch(`${w.base}/api/v1/status`, {
      headers: { Cookie: "homeagent_session=a; homeagent_session=b" },
    });
    assert.equal(forged.status, 401);
  });

  test("every method but GET, HEAD and OPTIONS is a write: a cookie request with another one needs the token", async () => {
    const session: AuthSession = {
      id: "sid",
      user: "admin",
      csrf: "token",
      createdAt: 0,
      expiresAt: Date.now() + 60_000,
    };
    const auth = {
      verifyApiKey: () => false,
      session: (id: string) => (id === session.id ? session : null),
      verifyCsrf: (id: string, token: string) => id === session.id && token === session.csrf,
    } as unknown as AuthAPI;
    const app = new Hono<WebEnv>();
    installErrorHandlers(app, () => {});
    app.use(
      "*",
      authMiddleware(() => auth),
    );
    app.on(["PURGE", "PROPFIND", "GET"], "/x", (c) => c.text("done"));
    for (const method of ["PURGE", "PROPFIND"]) {
      const refused = await app.request("/x", { method, headers: { Cookie: "homeagent_session=sid" } });
      assert.equal(refused.status, 403, method);
      const allowed = await app.request("/x", {
        method,
        headers: { Cookie: "homeagent_session=sid", "X-CSRF-Token": "token" },
      });
      assert.equal(allowed.status, 200, method);
    }
    assert.equal((await app.request("/x", { headers: { Cookie: "homeagent_session=sid" } })).status, 200);
  });

  test("logout ends the session and clears the cookie", async () => {
    const { cookie, csrf } = await w.login();
    const noToken = await fetch(`${w.base}/api/v1/logout`, { method: "POST", headers: { Cookie: cookie } });
    assert.equal(noToken.status, 403, "logout is a write too");
    const res = await fetch(`${w.base}/api/v1/logout`, {
      method: "POST",
      headers: { Cookie: cookie, "X-CSRF-Token": csrf },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { loggedOut: true });
    assert.match(
      res.headers.get("set-cookie") ?? "",
      /^homeagent_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0$/,
    );
    const after = await fetch(`${w.base}/api/v1/status`, { headers: { Cookie: cookie } });
    assert.equal(after.status, 401);
    assert.match(((await after.json()) as { error: { message: string } }).error.message, /log in again/);
  });

  test("malformed logins are 400, 413 or 415", async () => {
    const post = (body: string, type = "application/json") =>
      fetch(`${w.base}/api/v1/login`, { method: "POST", headers: { "Content-Type": type }, body });
    assert.equal((await post(JSON.stringify({ username: "admin" }))).status, 400);
    assert.equal((await post(JSON.stringify({ username: "admin", password: 5 }))).status, 400);
    assert.equal((await post("{nope")).status, 400);
    assert.equal((await post("username=admin", "application/x-www-form-urlencoded")).status, 415);
    const big = await post(JSON.stringify({ username: "admin", password: "x".repeat(10_000) }));
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as { error: { code: string } }).error.code, "body_too_large");
  });
});

// Logins from one address are limited (a burst of 5), so refused passwords are tried on a daemon of their own.
describe("refused logins and the login limit", () => {
  let limited: WebDaemon;
  before(async () => {
    limited = await startWebDaemon({ webuiOnly: true });
  });
  after(() => limited.stop());

  const attempt = (password: string, username = "admin") =>
    fetch(`${limited.base}/api/v1/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username, password }),
    });

  test("a wrong password or user name is 401 auth_failed, saying neither which", async () => {
    for (const [password, username] of [
      ["not-the-password", "admin"],
      [limited.password, "root"],
    ]) {
      const res = await attempt(password, username);
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: { code: "auth_failed", message: "wrong user name or password" } });
    }
  });

  test("too many attempts from one address are 429 with Retry-After, even with the right password", async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 8; i++) {
      last = await attempt("wrong");
      statuses.push(last.status);
      if (last.status === 429) break;
    }
    assert.ok(last && last.status === 429, `statuses: ${statuses.join(",")}`);
    assert.ok(statuses.slice(0, -1).every((s) => s === 401));
    assert.ok(Number(last.headers.get("retry-after")) >= 1);
    const body = (await last.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "auth_rate_limited");
    const right = await attempt(limited.password);
    assert.equal(right.status, 429);
    assert.equal((await limited.fetch("/api/v1/status")).status, 200, "the key still works");
  });
});
