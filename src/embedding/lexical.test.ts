import assert from "node:assert/strict";
import { test } from "node:test";
import { LexicalEmbedder } from "./lexical.js";
import { ErrModalityUnsupported, textInput } from "./spi.js";
import { isZeroVector } from "./vector-math.js";

const lex = new LexicalEmbedder();
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

test("vectors have the fixed dimension, unit length and a stable fingerprint", async () => {
  const [v] = await lex.embed([textInput("Caroline painted a sunrise over the lake")]);
  assert.equal(v.length, 1024);
  assert.ok(Math.abs(cos(v, v) - 1) < 1e-5);
  assert.deepEqual(lex.info(), { dimension: 1024, fingerprint: "lexical:hash-v1:d1024", modalities: ["text"] });
  assert.deepEqual(
    lex.vector("Caroline painted a sunrise"),
    new LexicalEmbedder().vector("Caroline painted a sunrise"),
  );
});

test("character n-grams let inflections and typos match", () => {
  const doc = lex.vector("I have been painting landscapes lately");
  assert.ok(cos(doc, lex.vector("painted")) > 0.15);
  assert.ok(cos(doc, lex.vector("landscpes")) > 0.15, "typo");
  assert.ok(cos(doc, lex.vector("painted")) > cos(doc, lex.vector("swimming")) + 0.1);
  const wordsOnly = new LexicalEmbedder({ ngramWeight: 0 });
  assert.ok(Math.abs(cos(wordsOnly.vector("painting"), wordsOnly.vector("painted"))) < 0.1);
});

test("CJK bigrams match across different segmentations", () => {
  const doc = lex.vector("我们周末去看樱花季的展览");
  assert.ok(cos(doc, lex.vector("樱花")) > 0.2);
  assert.ok(cos(doc, lex.vector("樱花")) > cos(doc, lex.vector("火车站")) + 0.15);
  assert.ok(cos(lex.vector("北京大学的图书馆"), lex.vector("北大图书馆")) > 0.3);
});

test("a text with no feature gives a zero vector, flagged by isZeroVector", () => {
  assert.ok(isZeroVector(lex.vector("the and of")));
  assert.ok(!isZeroVector(lex.vector("garden")));
});

test("non-default weights change the fingerprint; a bad dimension is refused", () => {
  assert.match(new LexicalEmbedder({ ngramWeight: 0.1 }).info().fingerprint, /^lexical:hash-v1:d1024:[0-9a-f]{8}$/);
  assert.equal(new LexicalEmbedder({ dimension: 256 }).info().fingerprint, "lexical:hash-v1:d256");
  assert.throws(() => new LexicalEmbedder({ dimension: 1000 }), /power of two/);
});

test("images are refused with ErrModalityUnsupported", async () => {
  await assert.rejects(lex.embed([{ data: new Uint8Array([1, 2]), mime: "image/png" }]), ErrModalityUnsupported);
});
