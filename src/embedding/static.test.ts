/** The static word-vector tier: loading .vec files, averaging, out-of-vocabulary text, progress. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { ErrModalityUnsupported, textInput } from "./spi.js";
import { StaticEmbedder } from "./static.js";
import { isZeroVector } from "./vector-math.js";
import { loadWordVectors, normalizeWord } from "./word-vectors.js";

const dir = tempDir("ha-static-");

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

// fastText: header, trailing spaces, CRLF, English and Chinese words.
const vec = write("cc.test.vec", "4 4\r\ncat 1 0 0 0 \r\ndog 0.8 0.6 0 0 \r\n猫 1 0 0 0 \r\n樱花 0 0 1 0 \r\n");
// Numberbatch: no header, /c/<lang>/ prefixes, a multiword term, a word the first file already has.
const nb = write(
  "numberbatch-test.txt",
  [
    "/c/en/new_york 0 0 0 1",
    "/c/en/new 0 1 0 0",
    "/c/en/york 0 1 0 0",
    "/c/zh/北京 0 0 0.6 0.8",
    "/c/en/cat 0 0 0 1",
  ].join("\n"),
);
const near = (a: Float32Array, b: number[]) => b.every((x, i) => Math.abs(a[i] - x) < 1e-5);

test("both formats merge into one vocabulary; vectors are the normalised mean of known words", async () => {
  const emb = await StaticEmbedder.load([vec, nb]);
  assert.equal(emb.vocabularySize, 8);
  assert.equal(emb.info().dimension, 4);
  const [cat, pets, mixed] = await emb.embed([
    textInput("The CAT"),
    textInput("cat and dog"),
    textInput("我的猫在北京"),
  ]);
  assert.ok(near(cat, [1, 0, 0, 0]), "the first file wins for cat; case folded");
  const s = Math.hypot(1.8, 0.6);
  assert.ok(near(pets, [1.8 / s, 0.6 / s, 0, 0]), `${pets}`);
  const m = Math.hypot(1, 0.6, 0.8);
  assert.ok(near(mixed, [1 / m, 0, 0.6 / m, 0.8 / m]), `${mixed}`);
});

test("multiword terms are preferred over their parts", async () => {
  const emb = await StaticEmbedder.load([vec, nb]);
  assert.ok(near(emb.vector("I love New York"), [0, 0, 0, 1]));
  assert.ok(near(emb.vector("york is new"), [0, 1, 0, 0]));
});

test("a text with no known word is a zero vector flagged by isZeroVector", async () => {
  const emb = await StaticEmbedder.load([vec]);
  assert.ok(isZeroVector(emb.vector("zebra crossing")));
  assert.ok(!isZeroVector(emb.vector("zebra cat")));
});

test("the fingerprint names each file with size, mtime and the dimension", async () => {
  const emb = await StaticEmbedder.load([vec, nb]);
  const size = (f: string) => fs.statSync(f).size;
  const mtime = (f: string) => Math.floor(fs.statSync(f).mtimeMs);
  assert.equal(
    emb.info().fingerprint,
    `static:cc.test.vec:${size(vec)}:${mtime(vec)}+numberbatch-test.txt:${size(nb)}:${mtime(nb)}:d4`,
  );
});

test("files of different dimensions are refused with a clear error", async () => {
  const small = write("small.vec", "1 3\nbird 1 2 3\n");
  await assert.rejects(
    StaticEmbedder.load([vec, small]),
    /differ in dimension: cc\.test\.vec has 4, small\.vec has 3; use files of one dimension/,
  );
});

test("missing files and malformed lines are reported", async () => {
  await assert.rejects(StaticEmbedder.load([path.join(dir, "none.vec")]), /none\.vec does not exist/);
  await assert.rejects(
    StaticEmbedder.load([write("bad.vec", "2 3\nok 1 2 3\nbad 1 x 3\n")]),
    /bad\.vec:3: "x" is not a number/,
  );
  await assert.rejects(
    StaticEmbedder.load([write("short.vec", "2 3\nok 1 2 3\nbad 1 2\n")]),
    /short\.vec:3: expected a word/,
  );
  await assert.rejects(StaticEmbedder.load([]), /embedding_model_path/);
});

test("loading a larger file reports monotonic byte progress ending at the total", async () => {
  const lines = ["20000 16"];
  for (let i = 0; i < 20000; i++)
    lines.push(`w${i} ${Array.from({ length: 16 }, (_, j) => ((i * 31 + j) % 97) / 97).join(" ")}`);
  const big = write("big.vec", `${lines.join("\n")}\n`);
  const seen: [number, number][] = [];
  const wv = await loadWordVectors([big], { onProgress: (read, total) => seen.push([read, total]) });
  assert.equal(wv.rows.size, 20000);
  assert.equal(wv.data.length, 20000 * 16);
  assert.ok(seen.length >= 5, `${seen.length} progress calls`);
  assert.ok(seen.every(([r], i) => i === 0 || r >= seen[i - 1][0]));
  assert.deepEqual(seen.at(-1), [fs.statSync(big).size, fs.statSync(big).size]);
  assert.ok(Math.abs(wv.data[wv.rows.get("w19999")! * 16 + 1] - ((19999 * 31 + 1) % 97) / 97) < 1e-6);
});

test("Numberbatch names lose their language prefix and part-of-speech suffix", () => {
  assert.equal(normalizeWord("/c/en/Ice_Cream/n"), "ice_cream");
  assert.equal(normalizeWord("/c/zh/猫"), "猫");
  assert.equal(normalizeWord("Word"), "word");
});

test("images are refused with ErrModalityUnsupported", async () => {
  const emb = await StaticEmbedder.load([vec]);
  await assert.rejects(emb.embed([{ data: new Uint8Array([1]), mime: "image/png" }]), ErrModalityUnsupported);
});
