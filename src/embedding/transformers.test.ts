/** The local model-folder tier: a tiny BERT in ONNX, and the errors for missing or broken folders. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { TINY_HIDDEN, TINY_VOCAB, writeTinyBert } from "../../test/fixtures/embedding/tiny-bert.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { ErrModalityUnsupported, textInput } from "./spi.js";
import { TransformersEmbedder } from "./transformers.js";

const root = tempDir("ha-transformers-");
const modelDir = path.join(root, "tiny-bert");
writeTinyBert(modelDir);

/** The tiny model embeds token i on axis i, so a text's vector is the normalised count of its tokens. */
function expected(tokens: string[]): number[] {
  const v = new Array<number>(TINY_HIDDEN).fill(0);
  for (const t of ["[CLS]", ...tokens, "[SEP]"]) v[TINY_VOCAB.indexOf(t)]++;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function assertClose(actual: Float32Array, want: number[]) {
  assert.equal(actual.length, want.length);
  for (let i = 0; i < want.length; i++)
    assert.ok(Math.abs(actual[i] - want[i]) < 1e-5, `axis ${i}: ${actual} vs ${want}`);
}

test("a self-built model folder loads and embeds with mean pooling, padding masked out", async () => {
  const emb = await TransformersEmbedder.load(modelDir);
  const info = emb.info();
  assert.equal(info.dimension, TINY_HIDDEN);
  assert.deepEqual(info.modalities, ["text"]);
  assert.match(info.fingerprint, /^transformers:tiny-bert:\d+-\d+:d10$/);
  const [a, b, c] = await emb.embed([textInput("Cat"), textInput("painting at home"), textInput("zebra")]);
  assertClose(a, expected(["cat"]));
  assertClose(b, expected(["paint", "##ing", "[UNK]", "home"]));
  assertClose(c, expected(["[UNK]"]));
});

test("image input is refused with ErrModalityUnsupported", async () => {
  const emb = await TransformersEmbedder.load(modelDir);
  await assert.rejects(emb.embed([{ data: new Uint8Array([0xff]), mime: "image/jpeg" }]), ErrModalityUnsupported);
});

test("a missing or incomplete model folder is reported clearly", async () => {
  await assert.rejects(TransformersEmbedder.load(path.join(root, "nope")), /model folder .*nope does not exist/);
  const partial = path.join(root, "partial");
  fs.mkdirSync(partial);
  fs.writeFileSync(path.join(partial, "config.json"), "{}");
  await assert.rejects(TransformersEmbedder.load(partial), /is missing tokenizer\.json, onnx\/model\.onnx/);
});

test("a corrupt model file is reported, not faked", async () => {
  const broken = path.join(root, "broken");
  writeTinyBert(broken);
  fs.writeFileSync(path.join(broken, "onnx", "model.onnx"), "not a model");
  await assert.rejects(TransformersEmbedder.load(broken), /model folder .*broken could not be loaded/);
});
