/**
 * jieba loaded on first use (segmenter.ts). Each case runs in a process of its own, since whether the
 * dictionary is loaded is process state that any other test touching Chinese text changes.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { NODE_FLAGS } from "../../test/fixtures/node-entry.js";

const SEGMENTER = new URL("./segmenter.js", import.meta.url).href;
const TEXT = new URL("./text.js", import.meta.url).href;

/** Long enough to reach most of jieba's paths: known words, compounds, names, numbers, unknown words (HMM). */
const CHINESE =
  "我今天去北京大学看樱花，顺便在图书馆借了三本关于人工智能的书。小明说他下周要去上海出差，" +
  "住在浦东新区的一家酒店里。天气预报说明天有雨，记得带伞。她的生日是十月二十三日，我们打算" +
  "给她买一台新的笔记本电脑。研究生命起源的科学家们在南京长江大桥附近开了一次研讨会。" +
  "日本語のテキストも少し混ぜておきます。한국어 문장도 하나 넣습니다。";

/** Runs `body` (an ES module's code, with `seg` and `text` imported) in a fresh node; returns what it prints. */
async function fresh(body: string): Promise<Record<string, unknown>> {
  const code = [
    `import * as seg from ${JSON.stringify(SEGMENTER)};`,
    `import * as text from ${JSON.stringify(TEXT)};`,
    `import { readFileSync } from "node:fs";`,
    `const nativeLoaded = () => readFileSync("/proc/self/maps", "utf8").includes("jieba");`,
    body,
  ].join("\n");
  const { stdout } = await promisify(execFile)(process.execPath, [...NODE_FLAGS, "--input-type=module", "-e", code], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** What the package documents: the whole dictionary at once. */
const WHOLE = `
  const { createRequire } = await import("node:module");
  const require = createRequire(${JSON.stringify(SEGMENTER)});
  const { Jieba } = require("@node-rs/jieba");
  const whole = Jieba.withDict(readFileSync(require.resolve("@node-rs/jieba/dict.txt")));
  const cuts = (j, s) => [j.cutForSearch(s, true), j.cut(s, true), j.cut(s, false)];
`;

test("no dictionary (nor jieba itself) until CJK text is tokenized; then the same tokens as before", async () => {
  const out = await fresh(`
    const latin = text.tokenize("What did Caroline's sister paint in 2023?");
    const before = { loaded: seg.segmenterLoaded(), native: nativeLoaded() };
    const tokens = text.tokenize(${JSON.stringify(CHINESE)});
    const after = { loaded: seg.segmenterLoaded(), native: nativeLoaded() };
    ${WHOLE}
    console.log(JSON.stringify({ latin, before, after, tokens, cuts: cuts(seg.segmenter(), ${JSON.stringify(CHINESE)}), wholeCuts: cuts(whole, ${JSON.stringify(CHINESE)}) }));
  `);
  assert.deepEqual(out.latin, ["caroline", "sister", "paint", "2023"]);
  assert.deepEqual(out.before, { loaded: false, native: false });
  assert.deepEqual(out.after, { loaded: true, native: true });
  assert.deepEqual(out.cuts, out.wholeCuts);
  for (const w of ["北京", "大学", "北京大学", "樱花", "人工智能", "笔记本电脑"]) {
    assert.ok((out.tokens as string[]).includes(w), `${w} in ${out.tokens}`);
  }
});

test("a preload loads the dictionary in slices, the event loop running between them, into the same segmenter", async () => {
  const out = await fresh(`
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const loading = seg.preloadSegmenter();
    const during = seg.segmenterLoaded();
    await loading;
    clearInterval(timer);
    ${WHOLE}
    console.log(JSON.stringify({ during, loaded: seg.segmenterLoaded(), ticks, cuts: cuts(seg.segmenter(), ${JSON.stringify(CHINESE)}), wholeCuts: cuts(whole, ${JSON.stringify(CHINESE)}) }));
  `);
  assert.equal(out.during, false);
  assert.equal(out.loaded, true);
  assert.ok((out.ticks as number) >= 10, `timers ran ${out.ticks} times during the preload`);
  assert.deepEqual(out.cuts, out.wholeCuts);
});

test("CJK text tokenized in the middle of a preload loads the rest at once, with the same result", async () => {
  const out = await fresh(`
    const loading = seg.preloadSegmenter();
    // Queued after the preload's first slice: that slice has run, the other ~150 have not.
    await new Promise((resolve) => setImmediate(resolve));
    const midway = seg.segmenterLoaded();
    const tokens = text.tokenize(${JSON.stringify(CHINESE)});
    const loaded = seg.segmenterLoaded();
    await loading;
    ${WHOLE}
    console.log(JSON.stringify({ midway, loaded, cutsMidway: cuts(seg.segmenter(), ${JSON.stringify(CHINESE)}), wholeCuts: cuts(whole, ${JSON.stringify(CHINESE)}), tokens }));
  `);
  assert.equal(out.midway, false);
  assert.equal(out.loaded, true, "tokenize finished the load itself");
  assert.deepEqual(out.cutsMidway, out.wholeCuts);
});
