/**
 * jieba, the word segmenter for Chinese, Japanese and Korean runs, loaded when it is first needed: its
 * dictionary costs ≈ 37 MB resident and 0.15–0.25 s to build, which a user who never writes CJK text
 * never needs (issue 20: idle RSS 135 → ≈ 80 MB). A user who does gets it loaded ahead of time by
 * preloadSegmenter, in slices between which the event loop runs, so neither the start nor a turn waits for
 * the whole build. Loading the dictionary in slices (one `loadDict` per run of whole lines) builds the same
 * segmenter as loading it at once: jieba adds each line's word and recounts the total after every call
 * (segmenter.test.ts compares the two on a long Chinese text).
 *
 * The package is required, not imported: an import would load the native module (≈ 5 MB) at start, and
 * `segmenter()` must stay synchronous (tokenize is) however far a preload has got.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Jieba } from "@node-rs/jieba";

const require = createRequire(import.meta.url);
/**
 * Dictionary bytes per slice of a preload: ≈ 0.7 ms of the event loop each. A few slices take 20–50 ms
 * whatever their size: those are where jieba's tables grow.
 */
const SLICE_BYTES = 32 * 1024;

/** A dictionary load under way: the segmenter so far and what is left of the dictionary. */
interface DictLoad {
  jieba: Jieba;
  dict: Buffer;
  offset: number;
}

let loaded: Jieba | null = null;
let partial: DictLoad | null = null;
let preload: Promise<void> | null = null;

/** The segmenter with its whole dictionary; loads (the rest of) it now if that has not happened yet. */
export function segmenter(): Jieba {
  if (loaded) return loaded;
  const load = partial ?? begin();
  load.jieba.loadDict(load.dict.subarray(load.offset));
  return finish(load);
}

/** Whether the dictionary is loaded in full. */
export function segmenterLoaded(): boolean {
  return loaded !== null;
}

/**
 * Loads the dictionary in the background, a slice per turn of the event loop; resolves when it is loaded
 * (at once if it already is). A `segmenter()` call meanwhile loads the rest itself.
 */
export function preloadSegmenter(): Promise<void> {
  if (loaded) return Promise.resolve();
  preload ??= new Promise<void>((resolve, reject) => {
    const step = () => {
      try {
        if (loaded) return resolve();
        const load = partial ?? begin();
        let end = Math.min(load.dict.length, load.offset + SLICE_BYTES);
        if (end < load.dict.length) end = load.dict.indexOf(0x0a, end) + 1 || load.dict.length;
        load.jieba.loadDict(load.dict.subarray(load.offset, end));
        load.offset = end;
        if (end < load.dict.length) return void setImmediate(step);
        finish(load);
        resolve();
      } catch (err) {
        reject(err);
      }
    };
    setImmediate(step);
  });
  return preload;
}

function begin(): DictLoad {
  const { Jieba } = require("@node-rs/jieba") as typeof import("@node-rs/jieba");
  // dict.txt alone: the package's dict.js would also read (and keep) idf.txt, 6 MB for keyword extraction.
  partial = { jieba: new Jieba(), dict: readFileSync(require.resolve("@node-rs/jieba/dict.txt")), offset: 0 };
  return partial;
}

function finish(load: DictLoad): Jieba {
  loaded = load.jieba;
  partial = null;
  return loaded;
}
