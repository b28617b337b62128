/** The mask shape write-check.ts recognises is exactly what maskSecret produces, so the two cannot drift. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { looksMasked, maskSecret } from "./secret.js";

test("every non-empty mask looks masked; real values and longer tails do not", () => {
  for (const secret of ["short", "sk-0123456789abcdef", "密钥密钥密钥密钥密钥密钥"]) {
    assert.equal(looksMasked(maskSecret(secret)), true, secret);
  }
  for (const value of ["sk-0123456789abcdef", "***abcd", "****abcde", ""])
    assert.equal(looksMasked(value), false, value);
});
