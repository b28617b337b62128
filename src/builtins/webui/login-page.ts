/**
 * The answer to GET / without a session: a browser (it asks for HTML) is sent to /login, which serves the
 * dashboard's login view, without an error in its console; any other client gets 401, with a page that
 * still takes a browser there (a meta refresh: no script, so the CSP holds).
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
  if (c.req.header("accept")?.includes("text/html")) return c.redirect("/login", 303);
  c.header("WWW-Authenticate", "Bearer");
  return c.html(UNAUTHENTICATED_HTML, 401);
}
