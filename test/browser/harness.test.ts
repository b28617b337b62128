/**
 * The browser harness proven on its own, before any dashboard test leans on it: Chromium launches with the
 * DESIGN flags, a real daemon's login page loads without script errors or CSP refusals and is screenshot,
 * the login helper and a session cookie both give a session, the platform-fonts query tells a CJK font from
 * a Latin one, and axe reports the violations of a page that has them and none on a page that has none.
 */
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import {
  addSessionCookie,
  axeViolations,
  browserSkip,
  captureScreenshot,
  cjkFontSkip,
  errorsOf,
  isCjkFamily,
  login,
  newPage,
  platformFontsFor,
  screenshot,
} from "../fixtures/browser.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

describe("browser harness", { skip: browserSkip }, () => {
  let web: WebDaemon;
  before(async () => {
    web = await startWebDaemon({ webuiOnly: true });
  });
  after(() => web?.stop());

  test("the login page of a real daemon loads cleanly and is screenshot", async (t) => {
    const page = await newPage(t);
    const res = await page.goto(`${web.base}/login`);
    assert.equal(res?.status(), 200);
    await page.getByRole("button", { name: "Log in" }).waitFor();
    const shot = await captureScreenshot(page, "login");
    assert.ok(statSync(shot).size > 1000, `screenshot ${shot} is too small to show anything`);
    // Before a login only the favicon and the session probe may be refused.
    const unexpected = errorsOf(page).filter((e) => !/^http 401 GET \/(favicon\.ico|api\/v1\/session)$/.test(e));
    assert.deepEqual(unexpected, []);
  });

  test("login() through the form gives the page a session", async (t) => {
    const page = await newPage(t);
    await login(page, web);
    const session = await page.request.get(`${web.base}/api/v1/session`);
    assert.equal(session.status(), 200);
    assert.equal(((await session.json()) as { user: string }).user, "admin");
    await screenshot(page, "after-login");
  });

  test("a session cookie from the API logs a fresh context in", async (t) => {
    const page = await newPage(t);
    const before = await page.request.get(`${web.base}/api/v1/session`);
    assert.equal(before.status(), 401);
    await addSessionCookie(page.context(), web.base, (await web.login()).cookie);
    const session = await page.request.get(`${web.base}/api/v1/session`);
    assert.equal(session.status(), 200);
    assert.equal((await page.goto(`${web.base}/`))?.status(), 200);
    await screenshot(page, "cookie-session");
  });
});

describe("platform fonts through the DevTools protocol", { skip: cjkFontSkip }, () => {
  test("Chinese text is drawn with a CJK font, English text with a Latin one", async (t) => {
    const page = await newPage(t);
    await page.setContent(
      '<html lang="zh-CN"><body><p id="zh">概览 设置 知识库</p><p id="en" lang="en">Overview</p></body></html>',
    );
    const zh = await platformFontsFor(page, "#zh");
    assert.ok(zh.some(isCjkFamily), `no CJK font among ${JSON.stringify(zh)}`);
    const en = await platformFontsFor(page, page.locator("#en"));
    assert.ok(en.length > 0, "no font reported for the English text");
    assert.ok(!en.some(isCjkFamily), `the English text used a CJK font: ${JSON.stringify(en)}`);
    await screenshot(page, "fonts");
  });
});

describe("axe-core", { skip: browserSkip }, () => {
  test("reports serious and critical violations with their targets", async (t) => {
    const page = await newPage(t, { bypassCSP: true });
    await page.setContent(
      '<html lang="en"><head><title>bad</title></head><body><main><img id="pic" src="data:,"><input id="q"></main></body></html>',
    );
    const found = await axeViolations(page);
    const ids = found.map((v) => v.id).sort();
    assert.ok(ids.includes("image-alt"), `image-alt missing from ${JSON.stringify(found)}`);
    assert.ok(ids.includes("label"), `label missing from ${JSON.stringify(found)}`);
    assert.ok(found.every((v) => v.impact === "serious" || v.impact === "critical"));
    assert.deepEqual(found.find((v) => v.id === "image-alt")?.targets, ["#pic"]);
    await screenshot(page, "axe-bad");
  });

  test("finds nothing serious on a labelled page", async (t) => {
    const page = await newPage(t, { bypassCSP: true });
    await page.setContent(
      '<html lang="en"><head><title>good</title></head><body><main><h1>Good</h1><label for="q">Search</label><input id="q"></main></body></html>',
    );
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, "axe-good");
  });
});
