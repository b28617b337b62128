/**
 * The raw conversation log: every answered turn appended as one JSON line under `<data>/memory/text/`,
 * rotated by size, readable only by the owner. It is the record of what was said, independent of what the
 * memory layers kept — so forgetting must reach it too: `purge` rewrites each file without the matching lines
 * (temp file + rename, so a crash leaves the old file or the new one, never half of one).
 */
import {
  closeSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { forgetMatcher, type Logger } from "@homeagent/sdk";
import { errorMessage, HomeAgentError } from "../util/errors.js";

export interface TextLogEvent {
  /** Unix ms. */
  ts: number;
  source: string;
  input: string;
  response: string;
  toolsUsed: string[];
  /** Set when input/response were cut to fit the line limit. */
  truncated?: boolean;
}

export interface TextLogOptions {
  /** A file is rotated when the next line would take it past this size (default 8 MiB). */
  maxBytes?: number;
  /** Rotated files kept, the current one included (default 8); older ones are deleted. */
  keepFiles?: number;
  /** Longest line; longer input/response are cut (default 64 KiB). */
  maxLineBytes?: number;
  log?: Pick<Logger, "warn">;
}

export class TextLogError extends HomeAgentError {}

const FILE = /^text-(\d{6,})\.jsonl$/;
const MAX_TOOLS = 50;
/** Lines said while a rewrite runs wait in memory; a rewrite takes well under a second, turns take longer. */
const MAX_PENDING = 10_000;

export class TextLog {
  private readonly maxBytes: number;
  private readonly keepFiles: number;
  private readonly maxLineBytes: number;
  private readonly log?: Pick<Logger, "warn">;
  private seq: number;
  private fd: number | null = null;
  private size = 0;
  private rewriting: Promise<unknown> = Promise.resolve();
  private busy = false;
  private pending: TextLogEvent[] = [];

  constructor(
    private readonly dir: string,
    opts: TextLogOptions = {},
  ) {
    this.maxBytes = opts.maxBytes ?? 8 * 1024 * 1024;
    this.keepFiles = Math.max(1, opts.keepFiles ?? 8);
    this.maxLineBytes = Math.max(1024, opts.maxLineBytes ?? 64 * 1024);
    this.log = opts.log;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new TextLogError({
        code: "textlog_dir",
        message: `cannot create the conversation log folder ${dir}: check the data dir's permissions`,
        cause: err,
      });
    }
    this.seq = Math.max(1, ...this.sequences());
  }

  /** Appends one answered turn. Never throws for a bad disk: the log is a record, not the memory itself. */
  append(e: TextLogEvent): void {
    const event = this.bounded(e);
    if (this.busy) {
      if (this.pending.length >= MAX_PENDING) {
        this.log?.warn(`conversation log: ${MAX_PENDING} lines waiting for a rewrite; one line dropped`);
        return;
      }
      this.pending.push(event);
      return;
    }
    this.write(event);
  }

  /**
   * Removes every line `match` accepts, in every file (and lines arriving meanwhile); returns how many.
   * A line that does not parse (cut by a crash mid-write) goes when `raw` accepts its text.
   */
  purge(match: (e: TextLogEvent) => boolean, raw: (line: string) => boolean = () => false): Promise<number> {
    return this.rewrite((e) => (match(e) ? null : e), raw);
  }

  /** Replaces the lines `match` accepts by `edit(line)`; returns how many changed. */
  replace(match: (e: TextLogEvent) => boolean, edit: (e: TextLogEvent) => TextLogEvent): Promise<number> {
    return this.rewrite((e) => (match(e) ? this.bounded(edit(e)) : e));
  }

  /**
   * Lines whose input, response or tools mention `text` (as forgetting matches), newest first, for previews;
   * a line that does not parse counts when its raw text does.
   */
  async search(text: string, limit = 20): Promise<{ total: number; events: TextLogEvent[] }> {
    const match = mentioning(text);
    const raw = forgetMatcher([text]);
    const events: TextLogEvent[] = [];
    let total = 0;
    for (const seq of this.sequences().sort((a, b) => b - a)) {
      const lines = await this.readLines(seq);
      for (let i = lines.length - 1; i >= 0; i--) {
        if (!raw(lines[i])) continue;
        const e = parse(lines[i]);
        if (e && !match(e)) continue;
        total++;
        if (e && events.length < limit) events.push(e);
      }
    }
    return { total, events };
  }

  /** Files and bytes on disk, for /memory stats. */
  stats(): { files: number; bytes: number } {
    const seqs = this.sequences();
    let bytes = 0;
    for (const seq of seqs) bytes += statSync(this.path(seq), { throwIfNoEntry: false })?.size ?? 0;
    return { files: seqs.length, bytes };
  }

  async close(): Promise<void> {
    await this.rewriting;
    this.closeFd();
  }

  private write(e: TextLogEvent): void {
    const line = `${JSON.stringify(e)}\n`;
    const bytes = Buffer.byteLength(line);
    try {
      if (this.fd === null) this.open();
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      writeSync(this.fd!, line);
      this.size += bytes;
    } catch (err) {
      this.log?.warn(`conversation log: cannot write to ${this.dir}: ${errorMessage(err)}`);
      this.closeFd();
    }
  }

  private open(): void {
    const fd = openSync(this.path(this.seq), "a", 0o600);
    fchmodSync(fd, 0o600);
    this.fd = fd;
    this.size = fstatSync(fd).size;
  }

  private rotate(): void {
    this.closeFd();
    this.seq++;
    this.open();
    const all = this.sequences().sort((a, b) => a - b);
    for (const old of all.slice(0, Math.max(0, all.length - this.keepFiles))) {
      rmSync(this.path(old), { force: true });
    }
  }

  private closeFd(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Cuts input/response so the JSON line fits maxLineBytes; caps the tool list. */
  private bounded(e: TextLogEvent): TextLogEvent {
    let out: TextLogEvent = {
      ts: e.ts,
      source: e.source.slice(0, 200),
      input: e.input,
      response: e.response,
      toolsUsed: e.toolsUsed.slice(0, MAX_TOOLS).map((t) => t.slice(0, 200)),
      ...(e.truncated ? { truncated: true } : {}),
    };
    let room = Math.max(e.input.length, e.response.length);
    while (Buffer.byteLength(JSON.stringify(out)) + 1 > this.maxLineBytes && room > 0) {
      room = Math.floor(room / 2);
      out = { ...out, input: e.input.slice(0, room), response: e.response.slice(0, room), truncated: true };
    }
    return out;
  }

  /**
   * Applies `edit` to every line of every file (null drops it) and rewrites the files that changed, one
   * rewrite at a time. Appends made meanwhile wait and go through `edit` too.
   */
  private rewrite(
    edit: (e: TextLogEvent) => TextLogEvent | null,
    dropRaw: (line: string) => boolean = () => false,
  ): Promise<number> {
    const run = this.rewriting.then(async () => {
      this.busy = true;
      let changed = 0;
      try {
        for (const seq of this.sequences().sort((a, b) => a - b)) changed += await this.rewriteFile(seq, edit, dropRaw);
      } finally {
        this.busy = false;
        changed += this.flushPending(edit);
      }
      return changed;
    });
    this.rewriting = run.catch(() => undefined);
    return run;
  }

  private async rewriteFile(
    seq: number,
    edit: (e: TextLogEvent) => TextLogEvent | null,
    dropRaw: (line: string) => boolean,
  ): Promise<number> {
    const lines = await this.readLines(seq);
    let changed = 0;
    const kept: string[] = [];
    for (const line of lines) {
      const e = parse(line);
      // A line that does not parse is kept as it is, unless the caller wants its text gone.
      if (!e) {
        if (dropRaw(line)) changed++;
        else kept.push(line);
        continue;
      }
      const next = edit(e);
      if (next === e) {
        kept.push(line);
        continue;
      }
      changed++;
      if (next) kept.push(JSON.stringify(next));
    }
    if (changed === 0) return 0;
    const path = this.path(seq);
    const tmp = `${path}.tmp`;
    const isCurrent = seq === this.seq;
    try {
      await writeFile(tmp, kept.length > 0 ? `${kept.join("\n")}\n` : "", { mode: 0o600 });
      if (isCurrent) this.closeFd();
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw new TextLogError({
        code: "textlog_rewrite",
        message: `cannot rewrite the conversation log ${path}: free disk space or fix permissions, then retry`,
        cause: err,
      });
    }
    return changed;
  }

  private flushPending(edit: (e: TextLogEvent) => TextLogEvent | null): number {
    const waiting = this.pending;
    this.pending = [];
    let changed = 0;
    for (const e of waiting) {
      const next = edit(e);
      if (next !== e) changed++;
      if (next) this.write(next);
    }
    return changed;
  }

  private async readLines(seq: number): Promise<string[]> {
    let text: string;
    try {
      text = await readFile(this.path(seq), "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new TextLogError({
        code: "textlog_read",
        message: `cannot read the conversation log ${this.path(seq)}: check its permissions`,
        cause: err,
      });
    }
    return text.split("\n").filter((l) => l !== "");
  }

  private sequences(): number[] {
    const out: number[] = [];
    for (const name of readdirSync(this.dir)) {
      const m = FILE.exec(name);
      if (m) out.push(Number(m[1]));
    }
    return out;
  }

  private path(seq: number): string {
    return join(this.dir, `text-${String(seq).padStart(6, "0")}.jsonl`);
  }
}

/** A matcher for lines whose input, response or tools mention every term, as forgetting matches. */
export function mentioning(...terms: string[]): (e: TextLogEvent) => boolean {
  const test = forgetMatcher(terms);
  return (e) => test([e.input, e.response, ...e.toolsUsed].join("\n"));
}

function parse(line: string): TextLogEvent | null {
  try {
    const e = JSON.parse(line) as TextLogEvent;
    return typeof e === "object" && e !== null && typeof e.input === "string" && typeof e.response === "string"
      ? { ...e, toolsUsed: Array.isArray(e.toolsUsed) ? e.toolsUsed : [] }
      : null;
  } catch {
    return null;
  }
}
