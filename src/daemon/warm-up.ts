/**
 * What the first reply after start would otherwise wait for, readied in the background right after
 * "ready" (issue 20): the adapter of the LLM source that reply goes to (a Lua worker boots in 0.1–0.25 s),
 * the code that composes a request (one read-only preview: query, memory sections, prompt) and, for a user who writes Chinese, Japanese or Korean, jieba's dictionary (0.15–0.25 s, ≈ 37 MB). Both
 * load on first use anyway; this only moves the wait out of the first reply. The dictionary is preloaded
 * only when CJK text is expected — the user's locale says so, or the conversation already has some — so a
 * user who writes none never carries it. Without an LLM source nothing is warmed: no reply can come.
 *
 * Then, a second after the rest (so that start-up work such as choosing the embedder has had its turn),
 * whole turns are rehearsed on scratch state (rehearsal.ts). The signal — the daemon stopping, or its first
 * real turn beginning (the first reply is what the rehearsal is for) — cancels the wait, and `rehearse` is
 * given it to end after the turn it is on.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@homeagent/sdk";
import { preloadSegmenter } from "../embedding/segmenter.js";
import { hasCjk } from "../embedding/text.js";
import type { ContextEvent } from "../kernel/types.js";
import type { ProviderManager } from "../llm/manager.js";
import { errorMessage } from "../util/errors.js";

const CJK_LANGUAGE = /^(zh|ja|ko)([_.@-]|$)/i;

export interface WarmUpOptions {
  llm: ProviderManager;
  env: Record<string, string | undefined>;
  /** The conversation as it stands (the context window). */
  recent: readonly ContextEvent[];
  /** Composes a request without running it (agent.previewContext): nothing is written or sent. */
  preview: (text: string) => Promise<unknown>;
  /** Runs whole turns on scratch state (rehearsal.ts), with a line of CJK text when `cjk`. */
  rehearse: (cjk: boolean) => Promise<unknown>;
  /** Time between the rest of the warm-up and the rehearsal (ms; default REHEARSE_AFTER_MS). */
  rehearseAfterMs?: number;
  /** Nothing more is started (the daemon is stopping, or its first turn began). */
  signal: AbortSignal;
  log: Logger;
}

const REHEARSE_AFTER_MS = 1000;

/**
 * Composed once after start, so the first turn finds the code of query preparation, memory sections and
 * prompt composition compiled. No CJK in it: an English-locale user does not pay for the dictionary.
 */
const PREVIEW_TEXT = "What did we talk about today?";

/** Starts the warm-up; resolves when it is done (a failure only logged: the first use reports it). */
export async function warmUp(opts: WarmUpOptions): Promise<void> {
  if (!opts.llm.hasSources()) return;
  const work: Promise<unknown>[] = [
    opts.llm.warm(),
    opts.preview(PREVIEW_TEXT).catch((err) => opts.log.warn(`composing a first request: ${errorMessage(err)}`)),
  ];
  const cjk = expectsCjk(opts.env, opts.recent);
  if (cjk) {
    work.push(preloadSegmenter().catch((err) => opts.log.warn(`loading the CJK dictionary: ${errorMessage(err)}`)));
  }
  await Promise.all(work);
  // After the dictionary: a rehearsed CJK line must not load it in one piece.
  const waited = await sleep(opts.rehearseAfterMs ?? REHEARSE_AFTER_MS, true, { signal: opts.signal }).catch(
    () => false,
  );
  if (!waited) return;
  await opts.rehearse(cjk).catch((err) => opts.log.warn(`rehearsing a turn: ${errorMessage(err)}`));
}

/** The user's messages are likely to hold CJK text: their locale's language, or what they said so far. */
export function expectsCjk(env: Record<string, string | undefined>, recent: readonly ContextEvent[]): boolean {
  // POSIX order: LC_ALL overrides LC_MESSAGES, which overrides LANG.
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || "";
  return CJK_LANGUAGE.test(locale) || recent.some((e) => hasCjk(e.input) || hasCjk(e.response));
}
