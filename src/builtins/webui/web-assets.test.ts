/**
 * Serving the dashboard over real HTTP, from a build made up in a temp dir: index.html for `/`, `/login`
 * and client-side page paths (no-cache, the dashboard's CSP), hashed assets cached for a year with their
 * types, nothing outside dist/web/assets reachable, a clear page when nothing is built; and the real build
 * (when there is one) has no inline script or style for the CSP to block.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { rawRequest, startWebDaemon, type WebDaemon } from "../../../test/fixtures/webui.js";
import { DASHBOARD_CSP, defaultWebRoot, IMMUTABLE } from "./web-assets.js";

const INDEX = `<!doctype html><html><head><script type="module" src="/assets/index-AbC123.js"></script></head><body><div id="app"></div></body></html>`;
const SECRET = "secret-outside-the-assets-folder";

function fakeBuild(): string {
  const parent = tempDir("ha-webroot-");
  const root = join(parent, "web");
  mkdirSync(join(root, "assets"), { recursive: true });
  writeFileSync(join(root, "index.html"), INDEX);
  writeFileSync(join(root, "assets", "index-AbC123.js"), "console.log('dashboard')");
  writeFileSync(join(root, "assets", "style-XyZ789.css"), "body{color:red}");
  writeFileSync(join(root, "assets", ".hidden"), SECRET);
  writeFileSync(join(root, "secret.txt"), SECRET);
  writeFileSync(join(parent, "secret.txt"), SECRET);
  return root;
}

describe("a built dashboard", () => {
  let w: WebDaemon;
  let cookie: string;
  before(async () => {
    w = await startWebDaemon({ webuiOnly: true, webRoot: fakeBuild() });
    cookie = (await w.login()).cookie;
  });
  after(() => w.stop());

  test("/ (with a session) and /login (without) serve index.html, not cached, with the dashboard's CSP", async () => {
    for (const [path, headers] of [
      ["/", { Cookie: cookie }],
      ["/login", {}],
    ] as const) {
      const res = await fetch(w.base + path, { headers });
      assert.equal(res.status, 200, path);
      assert.equal(await res.text(), INDEX, path);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/, path);
      assert.equal(res.headers.get("cache-control"), "no-cache", path);
      assert.equal(res.headers.get("content-security-policy"), DASHBOARD_CSP, path);
      assert.equal(res.headers.get("x-frame-options"), "DENY", path);
    }
    assert.match(DASHBOARD_CSP, /script-src 'self';/);
    assert.doesNotMatch(DASHBOARD_CSP, /unsafe-inline|unsafe-eval|https?:/);
  });

  test("/ without a session is still the 401 page that sends the browser to /login", async () => {
    const res = await fetch(`${w.base}/`);
    assert.equal(res.status, 401);
    const html = await res.text();
    assert.match(html, /<meta http-equiv="refresh" content="0; url=\/login">/);
    assert.doesNotMatch(html, /<script/);
  });

  test("hashed assets are served without credentials, with their type and a one-year immutable cache", async () => {
    const js = await fetch(`${w.base}/assets/index-AbC123.js`);
    assert.equal(js.status, 200);
    assert.equal(await js.text(), "console.log('dashboard')");
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(js.headers.get("cache-control"), IMMUTABLE);
    const css = await fetch(`${w.base}/assets/style-XyZ789.css`);
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(css.headers.get("cache-control"), IMMUTABLE);
    const head = await fetch(`${w.base}/assets/index-AbC123.js`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  });

  test("nothing outside dist/web/assets is reachable: dot segments, encoded slashes, hidden files → 404", async () => {
    const tries = [
      "/assets/../secret.txt",
      "/assets/../../secret.txt",
      "/assets/..%2fsecret.txt",
      "/assets/%2e%2e/secret.txt",
      "/assets/%2e%2e%2f%2e%2e%2fsecret.txt",
      "/assets/..%5csecret.txt",
      "/assets/.hidden",
      "/assets/%2ehidden",
      "/assets/index-AbC123.js%00.css",
      "/assets/%E0%A4%A",
      "/assets//etc/passwd",
      "/assets/",
      "/assets/missing-123.js",
    ];
    for (const path of tries) {
      // rawRequest sends the path as written (fetch would resolve the dot segments first).
      const res = await rawRequest(w.base, { path });
      assert.ok(res.status === 404 || res.status === 401, `${path} → ${res.status}`);
      assert.ok(!res.body.includes(SECRET), `${path} leaked the file`);
      if (res.status === 404) assert.equal(JSON.parse(res.body).error.code, "not_found", path);
    }
  });

  test("a page path the client owns serves index.html to a browser with a session; not to API clients", async () => {
    const page = await fetch(`${w.base}/memory/graph`, { headers: { Cookie: cookie, Accept: "text/html" } });
    assert.equal(page.status, 200);
    assert.equal(await page.text(), INDEX);
    assert.equal(page.headers.get("content-security-policy"), DASHBOARD_CSP);
    const json = await fetch(`${w.base}/memory/graph`, { headers: { Cookie: cookie, Accept: "application/json" } });
    assert.equal(json.status, 404);
    assert.equal(((await json.json()) as { error: { code: string } }).error.code, "not_found");
    for (const path of ["/api/v1/nope", "/v1/nope", "/uploads/nope.txt", "/favicon.ico"]) {
      const res = await fetch(w.base + path, { headers: { Cookie: cookie, Accept: "text/html" } });
      assert.equal(res.status, 404, path);
    }
    const post = await fetch(`${w.base}/memory/graph`, {
      method: "POST",
      headers: { Cookie: cookie, Accept: "text/html", "X-API-Key": w.apiKey },
    });
    assert.equal(post.status, 404);
    const anonymous = await fetch(`${w.base}/memory/graph`, { headers: { Accept: "text/html" } });
    assert.equal(anonymous.status, 401);
  });
});

describe("no build", () => {
  let w: WebDaemon;
  before(async () => {
    w = await startWebDaemon({ webuiOnly: true, webRoot: tempDir("ha-nobuild-") });
  });
  after(() => w.stop());

  test("/ and /login say to run npm run build; the API still works", async () => {
    const { cookie } = await w.login();
    for (const [path, headers] of [
      ["/", { Cookie: cookie }],
      ["/login", {}],
    ] as const) {
      const res = await fetch(w.base + path, { headers });
      assert.equal(res.status, 503, path);
      assert.match(await res.text(), /npm run build/, path);
      assert.equal(res.headers.get("content-security-policy"), DASHBOARD_CSP, path);
    }
    assert.equal((await w.fetch("/api/v1/status")).status, 200);
  });
});

describe("the package's own build", () => {
  const repo = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

  test("the default web root is dist/web of the homeagent package, found from the module's folder", () => {
    assert.equal(defaultWebRoot(), join(repo, "dist", "web"));
    assert.equal(defaultWebRoot(join(repo, "dist", "builtins", "webui")), join(repo, "dist", "web"));
  });

  const index = join(repo, "dist", "web", "index.html");
  test("the built index.html has no inline script or style and every file it names exists", {
    skip: existsSync(index) ? false : "dist/web is not built (npm run build)",
  }, () => {
    const html = readFileSync(index, "utf8");
    assert.doesNotMatch(html, /<style|style=|\son[a-z]+=/i);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length >= 1);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs, /src="\/assets\/[^"]+"/);
      assert.equal(body.trim(), "", "no inline script");
    }
    for (const [, file] of html.matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)) {
      assert.ok(existsSync(join(repo, "dist", "web", "assets", file)), file);
      assert.match(file, /-[A-Za-z0-9_-]{6,}\.(js|css)$/, `${file} is hashed`);
    }
  });
});
