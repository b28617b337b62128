/**
 * Loads pretrained word-vector text files into one vocabulary: fastText `.vec` (a "count dim" header,
 * then "word v1 … vD") and ConceptNet Numberbatch (the same, words written `/c/<lang>/word` or plain,
 * multiword terms joined with `_`). Files can be gigabytes, so they are streamed line by line and all
 * vectors go into one Float32Array instead of millions of small arrays.
 */
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { EmbeddingError } from "./errors.js";

export interface WordVectors {
  dimension: number;
  /** Word → row in `data`. */
  rows: Map<string, number>;
  /** Row-major, `rows.size × dimension`. */
  data: Float32Array;
  files: { name: string; size: number; mtimeMs: number }[];
}

export interface LoadOptions {
  /** Called as bytes are read, at most about once per percent, and once at the end. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  signal?: AbortSignal;
}

const HEADER = /^\d+ \d+$/;
const INITIAL_ROWS = 1 << 16;

/** `/c/en/ice_cream/n` → `ice_cream`; `Word` → `word`. Languages share one vocabulary: the first file wins. */
export function normalizeWord(raw: string): string {
  const m = /^\/c\/[^/]+\/([^/]+)/.exec(raw);
  return (m ? m[1] : raw).toLowerCase();
}

export async function loadWordVectors(paths: string[], opts: LoadOptions = {}): Promise<WordVectors> {
  if (paths.length === 0) {
    throw new EmbeddingError({
      code: "embedding_config",
      message: "no word vector file given; set core.agent.embedding_model_path",
    });
  }
  const files = paths.map((p) => {
    const stat = fs.statSync(p, { throwIfNoEntry: false });
    if (!stat?.isFile()) {
      throw new EmbeddingError({
        code: "embedding_config",
        message: `word vector file ${p} does not exist (core.agent.embedding_model_path)`,
      });
    }
    return { path: p, name: path.basename(p), size: stat.size, mtimeMs: Math.floor(stat.mtimeMs) };
  });
  const total = files.reduce((n, f) => n + f.size, 0);
  const store = new Store();
  let done = 0;
  let reported = -1;
  const progress = (bytes: number) => {
    const pct = total === 0 ? 100 : Math.floor(((done + bytes) / total) * 100);
    if (pct > reported) {
      reported = pct;
      opts.onProgress?.(done + bytes, total);
    }
  };
  let dimOwner = "";
  for (const file of files) {
    const stream = fs.createReadStream(file.path, { encoding: "utf8", highWaterMark: 1 << 20 });
    const lines = readline.createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
    let lineNo = 0;
    let dimChecked = false;
    try {
      for await (const raw of lines) {
        lineNo++;
        opts.signal?.throwIfAborted();
        const line = raw.trimEnd();
        if (line === "") continue;
        if (lineNo === 1 && HEADER.test(line)) {
          const [count, dim] = line.split(" ").map(Number);
          dimOwner = store.setDimension(dim, file.name, dimOwner);
          dimChecked = true;
          // A row takes at least two bytes per number, so a header cannot make us reserve more than the file holds.
          store.reserve(Math.min(count, Math.ceil(file.size / (2 * dim))));
          continue;
        }
        const fields = line.split(" ");
        if (!dimChecked) {
          // No header: the first line tells the dimension.
          dimOwner = store.setDimension(fields.length - 1, file.name, dimOwner);
          dimChecked = true;
        }
        store.add(fields, `${file.name}:${lineNo}`);
        if ((lineNo & 0x3ff) === 0) progress(stream.bytesRead);
      }
    } finally {
      lines.close();
      stream.destroy();
    }
    done += file.size;
    progress(0);
  }
  if (store.rows.size === 0) invalidFile(`word vector files ${paths.join(", ")} hold no vectors`);
  return {
    dimension: store.dimension,
    rows: store.rows,
    data: store.finish(),
    files: files.map(({ name, size, mtimeMs }) => ({ name, size, mtimeMs })),
  };
}

class Store {
  dimension = 0;
  readonly rows = new Map<string, number>();
  private data = new Float32Array(0);

  /** Fixes the dimension, or refuses a file whose dimension differs. Returns the file that fixed it. */
  setDimension(dim: number, file: string, owner: string): string {
    if (!Number.isInteger(dim) || dim < 1) invalidFile(`word vector file ${file} has no valid dimension`);
    if (this.dimension === 0) {
      this.dimension = dim;
      return file;
    }
    if (dim !== this.dimension) {
      invalidFile(
        `word vector files differ in dimension: ${owner} has ${this.dimension}, ${file} has ${dim}; use files of one dimension`,
      );
    }
    return owner;
  }

  reserve(extraRows: number): void {
    this.grow((this.rows.size + extraRows) * this.dimension);
  }

  add(fields: string[], where: string): void {
    const d = this.dimension;
    if (fields.length < d + 1) invalidFile(`${where}: expected a word and ${d} numbers, got ${fields.length} fields`);
    // A word may itself contain (non-ASCII) spaces in some fastText files: the vector is the last d fields.
    const word = normalizeWord(fields.slice(0, fields.length - d).join(" "));
    if (this.rows.has(word)) return;
    const row = this.rows.size;
    if ((row + 1) * d > this.data.length) this.grow(Math.max(INITIAL_ROWS * d, this.data.length * 2));
    const base = row * d;
    const offset = fields.length - d;
    for (let i = 0; i < d; i++) {
      const x = Number(fields[offset + i]);
      if (Number.isNaN(x) || fields[offset + i] === "") {
        invalidFile(`${where}: ${JSON.stringify(fields[offset + i])} is not a number`);
      }
      this.data[base + i] = x;
    }
    this.rows.set(word, row);
  }

  finish(): Float32Array {
    const used = this.rows.size * this.dimension;
    return used === this.data.length ? this.data : this.data.slice(0, used);
  }

  private grow(length: number): void {
    if (length <= this.data.length) return;
    const next = new Float32Array(length);
    next.set(this.data);
    this.data = next;
  }
}

function invalidFile(message: string): never {
  throw new EmbeddingError({ code: "embedding_invalid_data", message });
}
