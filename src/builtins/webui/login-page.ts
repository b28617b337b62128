/**
 * The pages the server itself serves before the dashboard exists: the login form (static HTML plus
 * /assets/login.js and /assets/login.css, no inline script or style, so the CSP `default-src 'self'` holds),
 * the page a logged-in browser sees at `/`, and the 401 page that sends a browser without a session to the
 * login form with a meta refresh (no script needed).
 */
import type { Context } from "hono";
import type { RouteGroup, WebEnv } from "./context.js";

const LOGIN_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>HomeAgent — log in</title>
<link rel="stylesheet" href="/assets/login.css">
<script src="/assets/login.js" defer></script>
</head>
<body>
<main>
<h1>HomeAgent</h1>
<form id="login">
<label>User <input name="username" autocomplete="username" value="admin" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button>
<p id="message" role="alert"></p>
</form>
<p class="hint">The first start wrote the password to <code>credentials</code> in the data folder.</p>
</main>
</body>
</html>
`;

const LOGIN_JS = `"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("login");
  const message = document.getElementById("message");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    const data = new FormData(form);
    try {
      const res = await fetch("/api/v1/login", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: data.get("username"), password: data.get("password") }),
      });
      if (res.ok) {
        location.href = "/";
        return;
      }
      const body = await res.json().catch(() => null);
      message.textContent = (body && body.error && body.error.message) || "login failed (" + res.status + ")";
    } catch (err) {
      message.textContent = "the server did not answer: " + err.message;
    }
  });
});
`;

const LOGIN_CSS = `body { font-family: system-ui, sans-serif; margin: 0; background: #f4f4f5; color: #18181b; }
main { max-width: 22rem; margin: 12vh auto; padding: 2rem; background: #fff; border-radius: 8px; }
h1 { margin-top: 0; font-size: 1.4rem; }
label { display: block; margin-bottom: 1rem; }
input { display: block; width: 100%; box-sizing: border-box; margin-top: .25rem; padding: .5rem; }
button { padding: .5rem 1rem; }
#message { color: #b91c1c; min-height: 1.2em; }
.hint { font-size: .85rem; color: #52525b; }
`;

const HOME_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>HomeAgent</title>
<link rel="stylesheet" href="/assets/login.css">
</head>
<body>
<main>
<h1>HomeAgent</h1>
<p>The daemon is running. The dashboard is not part of this version yet; the API is at
<code>/api/v1/</code> (e.g. <a href="/api/v1/status">/api/v1/status</a>) and the OpenAI-compatible endpoint at
<code>/v1/chat/completions</code>.</p>
</main>
</body>
</html>
`;

const UNAUTHENTICATED_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="0; url=/login">
<title>HomeAgent — log in</title>
</head>
<body><p><a href="/login">Log in</a> to use HomeAgent.</p></body>
</html>
`;

export const pageRoutes: RouteGroup = (app) => {
  app.get("/login", (c) => c.html(LOGIN_HTML));
  app.get("/assets/login.js", (c) => asset(c, LOGIN_JS, "text/javascript; charset=utf-8"));
  app.get("/assets/login.css", (c) => asset(c, LOGIN_CSS, "text/css; charset=utf-8"));
  app.get("/", (c) => c.html(HOME_HTML));
  return undefined;
};

/** GET / without a session: 401, and a page that takes a browser to the login form. */
export function unauthenticatedPage(c: Context<WebEnv>): Response {
  c.header("WWW-Authenticate", "Bearer");
  return c.html(UNAUTHENTICATED_HTML, 401);
}

function asset(c: Context<WebEnv>, body: string, type: string): Response {
  c.header("Content-Type", type);
  c.header("Cache-Control", "no-cache");
  return c.body(body);
}
