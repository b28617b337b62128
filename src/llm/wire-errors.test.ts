import assert from "node:assert/strict";
import { test } from "node:test";
import { errorDetail, httpError, parseRetryAfter } from "./wire-errors.js";

test("retry-after: delay-seconds, HTTP date (never negative), anything else ignored", () => {
  const now = Date.parse("2025-06-01T10:00:00Z");
  assert.equal(parseRetryAfter("120", now), 120_000);
  assert.equal(parseRetryAfter(" 1.5 ", now), 1500);
  assert.equal(parseRetryAfter("Sun, 01 Jun 2025 10:00:30 GMT", now), 30_000);
  assert.equal(parseRetryAfter("Sun, 01 Jun 2025 09:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter("-5", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

test("error text from OpenAI, Anthropic, Gemini and Ollama bodies", () => {
  assert.equal(errorDetail('{"error":{"message":"quota"}}'), "quota");
  assert.equal(errorDetail('{"type":"error","error":{"type":"x","message":"overloaded"}}'), "overloaded");
  assert.equal(errorDetail('{"error":"model not found"}'), "model not found");
  assert.equal(errorDetail("<html>  bad\n gateway</html>"), "<html> bad gateway</html>");
});

test("classification: context length only for 400/413, retry-after only when transient", () => {
  const res = (status: number, headers: Record<string, string> = {}) => ({
    status,
    statusText: "",
    headers: new Headers(headers),
  });
  const same = (t: string) => t;
  const gemini =
    '{"error":{"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}}';
  assert.equal(httpError(res(400), gemini, same).kind, "context_length");
  assert.equal(httpError(res(500), gemini, same).kind, "transient");
  assert.equal(httpError(res(413), "request too large: too many tokens", same).kind, "context_length");
  assert.equal(httpError(res(503, { "retry-after": "2" }), "", same).retryAfterMs, 2000);
  assert.equal(httpError(res(400, { "retry-after": "2" }), "", same).retryAfterMs, undefined);
  assert.equal(httpError(res(401), "", same).kind, "auth");
});
