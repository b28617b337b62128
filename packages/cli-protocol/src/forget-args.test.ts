/** The one reading of `/memory forget` arguments, the glued-flag cases the review found included. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseForgetArgs } from "./index.js";

describe("parseForgetArgs", () => {
  it("takes --yes and --knowledge in any order before the query", () => {
    const both = { confirm: true, knowledge: true, query: "q" };
    assert.deepEqual(parseForgetArgs("--yes --knowledge q"), both);
    assert.deepEqual(parseForgetArgs("--knowledge --yes q"), both);
    assert.deepEqual(parseForgetArgs("  --knowledge\t--yes   q  "), both);
    assert.deepEqual(parseForgetArgs("--yes my secret"), { confirm: true, knowledge: false, query: "my secret" });
    assert.deepEqual(parseForgetArgs("--knowledge q"), { confirm: false, knowledge: true, query: "q" });
    assert.deepEqual(parseForgetArgs("my secret"), { confirm: false, knowledge: false, query: "my secret" });
  });

  it("reads a word that only starts like a flag as the query", () => {
    assert.deepEqual(parseForgetArgs("--yesterday's notes"), {
      confirm: false,
      knowledge: false,
      query: "--yesterday's notes",
    });
    assert.deepEqual(parseForgetArgs("--knowledgeable friend"), {
      confirm: false,
      knowledge: false,
      query: "--knowledgeable friend",
    });
    assert.deepEqual(parseForgetArgs("--yes --yesterday's notes"), {
      confirm: true,
      knowledge: false,
      query: "--yesterday's notes",
    });
  });

  it("stops at the query: a flag after it is part of it", () => {
    assert.deepEqual(parseForgetArgs("--yes pin --knowledge"), {
      confirm: true,
      knowledge: false,
      query: "pin --knowledge",
    });
  });

  it("keeps a Chinese query whole", () => {
    assert.deepEqual(parseForgetArgs("--yes 我的密码 菠萝"), {
      confirm: true,
      knowledge: false,
      query: "我的密码 菠萝",
    });
    assert.deepEqual(parseForgetArgs("--knowledge\u3000菠萝"), { confirm: false, knowledge: true, query: "菠萝" });
  });

  it("flags alone leave an empty query", () => {
    assert.deepEqual(parseForgetArgs("--yes"), { confirm: true, knowledge: false, query: "" });
    assert.deepEqual(parseForgetArgs(""), { confirm: false, knowledge: false, query: "" });
  });
});
