/**
 * The tool-definition rules: valid definitions (the built-ins' shapes) pass, and each rule a provider
 * enforces is caught with the rule and the providers named — and nothing is flagged that no provider refuses.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { providerOf, schemaProblems } from "./schema-rules.js";

type Def = { name: string; description: string; parameters: Record<string, unknown> };

const valid: Def = {
  name: "cmd_run",
  description: "Run one program.",
  parameters: {
    type: "object",
    properties: { command: { type: "string" }, definitions: { type: "string", description: "a parameter named so" } },
    required: ["command"],
  },
};
const rules = (tool: Partial<Def>) => schemaProblems({ ...valid, ...tool }).map((p) => [p.rule, p.providers.join("+")]);

test("a valid definition has no problem; a parameter named like a keyword is not one", () => {
  assert.deepEqual(schemaProblems(valid), []);
  assert.deepEqual(schemaProblems({ ...valid, parameters: { type: "object", properties: {} } }), []);
  assert.deepEqual(schemaProblems({ ...valid, parameters: { type: "object" } }), []);
});

test("names: the common pattern for everyone, a leading letter or _ for Gemini", () => {
  assert.deepEqual(rules({ name: "has space" }), [["name", "openai+anthropic+gemini"]]);
  assert.deepEqual(rules({ name: "x".repeat(65) }), [["name", "openai+anthropic+gemini"]]);
  assert.deepEqual(rules({ name: "2fa_code" }), [["name", "gemini"]]);
});

test("parameters: type object, properties of schemas, required naming properties", () => {
  assert.deepEqual(rules({ parameters: { type: "string" } }), [["parameters.type", "openai+anthropic+gemini"]]);
  assert.deepEqual(rules({ parameters: undefined as never }), [["parameters.type", "openai+anthropic+gemini"]]);
  assert.deepEqual(rules({ parameters: { type: "object", properties: { a: "string" } } }), [
    ["parameters.properties", "openai+anthropic+gemini"],
  ]);
  const missing = schemaProblems({
    ...valid,
    parameters: { type: "object", properties: { a: { type: "string" } }, required: ["a", "b"] },
  });
  assert.deepEqual(
    missing.map((p) => p.message),
    ['parameters.required names "b", not among its properties'],
  );
});

test("oneOf/anyOf/allOf/enum/not at the top level are refused by OpenAI and Anthropic", () => {
  assert.deepEqual(rules({ parameters: { type: "object", anyOf: [{ required: ["a"] }], properties: {} } }), [
    ["parameters.top_level", "openai+anthropic"],
  ]);
});

test("$ref anywhere breaks Gemini; the path to it is given", () => {
  const problems = schemaProblems({
    ...valid,
    parameters: {
      type: "object",
      properties: { when: { $ref: "#/$defs/date" } },
      $defs: { date: { type: "string" } },
    },
  });
  assert.deepEqual(
    problems.map((p) => [p.rule, p.providers.join("+")]),
    [["parameters.$ref", "gemini"]],
  );
  assert.match(problems[0].message, /^\$ref \(at parameters\.properties\.when\)/);
});

test("descriptions: missing is advisory, over 1024 characters is refused by OpenAI-compatible endpoints", () => {
  const none = schemaProblems({ ...valid, description: "" });
  assert.deepEqual(
    none.map((p) => [p.rule, p.advisory, p.providers.length]),
    [["description", true, 0]],
  );
  assert.deepEqual(rules({ description: "x".repeat(1025) }), [["description", "openai"]]);
});

test("adapters map to the wire rules they follow", () => {
  assert.deepEqual(["anthropic", "gemini", "openai", "deepseek", "ollama", "server"].map(providerOf), [
    "anthropic",
    "gemini",
    "openai",
    "openai",
    "openai",
    "openai",
  ]);
});
