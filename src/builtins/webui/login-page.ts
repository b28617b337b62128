/**
 * The answer to GET / without a session: 401, and a page that takes a browser to /login with a meta
 * refresh (no script, so the CSP holds). /login serves the dashboard, which shows its login view.
 */
import type { Context } from "hono";
import type { WebEnv } from "./context.js";

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

export function unauthenticatedPage(c: Context<WebEnv>): Response {
  c.header("WWW-Authenticate", "Bearer");
  return c.html(UNAUTHENTICATED_HTML, 401);
}
