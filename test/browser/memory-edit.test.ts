/**
 * Correcting memory in a real Chromium against a real daemon: a wrong fact is edited in the Memory tab
 * (inline form, then an explicit confirmation) and another deleted (confirmation too); the next prompt the
 * LLM receives carries the corrected fact and neither the old nor the deleted one. A refused correction
 * and a fact changed meanwhile (a stale id) show the server's message and change nothing else.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import {
  axeViolations,
  dashboardSkip,
  errorsOf,
  newPage,
  openDashboard,
  screenshot,
  sendChat,
} from "../fixtures/browser.js";
import { startWebDaemon, type WebDaemon } from "../fixtures/webui.js";

const SLEEPS = "Biscuit — sleeps on → the piano";
const LIKES = "Biscuit — likes → tuna";

async function commit(web: WebDaemon, triples: Array<{ subject: string; relation: string; object: string }>) {
  const res = await web.json("POST", "/api/v1/memory", { triples });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function openFacts(page: Page) {
  await page.getByRole("tab", { name: "Memory", exact: true }).click();
  const facts = page.getByRole("list", { name: "Facts in the graph" });
  await facts.waitFor();
  return facts;
}

describe("editing memory in a real browser", { skip: dashboardSkip }, () => {
  test("a fact edited and another deleted (each confirmed) are out of the next prompt; the correction is in", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    await commit(web, [
      { subject: "Biscuit", relation: "sleeps on", object: "the piano" },
      { subject: "Biscuit", relation: "likes", object: "tuna" },
    ]);
    // Without the CSP only so that axe-core can be injected (see newPage).
    const page = await newPage(t, { bypassCSP: true });
    await openDashboard(page, web.base, (await web.login()).cookie);
    const facts = await openFacts(page);
    await facts.getByText("the piano", { exact: true }).waitFor();

    await page.getByRole("button", { name: `Edit: ${SLEEPS}`, exact: true }).click();
    const form = page.getByRole("form", { name: `Correct this fact: ${SLEEPS}` });
    assert.deepEqual(await axeViolations(page), [], "the edit form");
    assert.equal(
      await form.getByLabel("Object", { exact: true }).inputValue(),
      "the piano",
      "the form starts from the fact",
    );
    await form.getByLabel("Object", { exact: true }).fill("the sofa");
    await form.getByRole("button", { name: "Save", exact: true }).click();
    // Saving only asks: nothing is written before the confirmation.
    const replace = page.getByRole("button", { name: `Replace for good: ${SLEEPS}`, exact: true });
    await replace.waitFor();
    assert.equal((await web.json("GET", "/api/v1/memory/graph")).body.edges.length, 2);
    await screenshot(page, "memory-edit-confirm");
    assert.deepEqual(await axeViolations(page), [], "the confirmation");
    await replace.click();
    await page.getByRole("status").filter({ hasText: "Fact corrected." }).waitFor();
    await facts.getByText("the sofa", { exact: true }).waitFor();
    assert.equal(await facts.getByText("the piano", { exact: true }).count(), 0, "the old fact is still listed");

    await page.getByRole("button", { name: `Delete: ${LIKES}`, exact: true }).click();
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    assert.equal(await facts.getByText("tuna", { exact: true }).count(), 1, "Cancel deleted the fact");
    await page.getByRole("button", { name: `Delete: ${LIKES}`, exact: true }).click();
    await page.getByRole("button", { name: `Delete for good: ${LIKES}`, exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Fact deleted." }).waitFor();
    // Exact: the confirmation button, which names the fact too, may still be there for a moment.
    await facts.getByText("tuna", { exact: true }).waitFor({ state: "detached" });
    await screenshot(page, "memory-edited");

    const before = web.llm.requests.length;
    const turn = await sendChat(page, "Where does Biscuit sleep, and what does Biscuit like?");
    await turn.getByText("ok", { exact: true }).waitFor();
    const prompt = JSON.stringify(web.llm.requests.slice(before).map((r) => r.body));
    assert.match(prompt, /the sofa/, "the corrected fact is not in the next prompt");
    assert.doesNotMatch(prompt, /the piano/, "the old fact is still in the next prompt");
    assert.doesNotMatch(prompt, /tuna/, "the deleted fact is still in the next prompt");
    assert.deepEqual(
      errorsOf(page).filter((e) => !e.startsWith("http 4")),
      [],
    );
  });

  test("a refused correction and a stale fact show the server's reason; memory keeps the fact as it was", async (t) => {
    const web = await startWebDaemon();
    t.after(() => web.stop());
    await commit(web, [
      { subject: "Biscuit", relation: "sleeps on", object: "the piano" },
      { subject: "Biscuit", relation: "likes", object: "tuna" },
    ]);
    const page = await newPage(t);
    await openDashboard(page, web.base, (await web.login()).cookie);
    const facts = await openFacts(page);
    await facts.getByText("the piano", { exact: true }).waitFor();

    await page.getByRole("button", { name: `Edit: ${SLEEPS}`, exact: true }).click();
    const form = page.getByRole("form", { name: `Correct this fact: ${SLEEPS}` });
    await form.getByLabel("Object", { exact: true }).fill("x");
    await form.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("button", { name: `Replace for good: ${SLEEPS}`, exact: true }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /must be 2–50 characters/ })
      .waitFor();
    await form.waitFor();
    const graph = (await web.json("GET", "/api/v1/memory/graph")).body;
    assert.ok(
      graph.edges.some((e: { object: string }) => e.object === "the piano"),
      "the refused edit changed memory",
    );

    // Someone else deletes the fact while this page still lists it.
    const tuna = graph.edges.find((e: { object: string }) => e.object === "tuna");
    assert.equal((await web.json("DELETE", `/api/v1/memory/facts/${tuna.id}`)).status, 200);
    await page.getByRole("button", { name: `Delete: ${LIKES}`, exact: true }).click();
    await page.getByRole("button", { name: `Delete for good: ${LIKES}`, exact: true }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: `there is no fact #${tuna.id} in memory` })
      .waitFor();
    await screenshot(page, "memory-edit-stale");
    assert.ok(
      (await web.json("GET", "/api/v1/memory/graph")).body.edges.some(
        (e: { object: string }) => e.object === "the piano",
      ),
    );
  });
});
