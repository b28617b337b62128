/**
 * Facts a plugin writes into the graph as the user's own (`sdk.memory.commit`, the web UI's "add fact"):
 * the same GraphDB.commit the memory_commit tool calls, behind stricter checks. The model's tool skips a
 * bad triple and says why; a program gets the whole call refused with "invalid_argument" before anything
 * is written, so a form never half-saves.
 */
import type { MemoryTriple } from "@homeagent/sdk";
import { describe, MemoryArgumentError } from "../api-args.js";
import type { GraphDB } from "./graph.js";
import { checkSentence, checkTriple, GraphError } from "./rules.js";

export const COMMIT_LIMITS = {
  triples: 100,
  /** Characters of a subject, relation or object before the graph's own (shorter) name rules apply. */
  fieldChars: 512,
  /** Told by the user: trusted, not certain. */
  defaultConfidence: 0.9,
} as const;

/** Facts committed (or corrected) through the API share one session, so committing a fact again refreshes it. */
export const USER_SESSION = "user";

const FIELDS = ["subject", "relation", "object"] as const;

export function commitFacts(
  graph: GraphDB,
  triples: unknown,
  opts: { sentence?: string } | undefined,
): { added: number; updated: number } {
  if (!Array.isArray(triples) || triples.length === 0 || triples.length > COMMIT_LIMITS.triples) {
    throw new MemoryArgumentError(
      `triples must be an array of 1–${COMMIT_LIMITS.triples} {subject, relation, object}: commit more in batches`,
    );
  }
  const clean = triples.map((t, i) => checkOne(t, i));
  let sentence: string | undefined;
  try {
    sentence = checkSentence(opts?.sentence) ?? undefined;
  } catch (err) {
    if (err instanceof GraphError) throw new MemoryArgumentError(err.message, err);
    throw err;
  }
  // The user states these facts on purpose: one they had removed comes back (explicit lifts the rejection).
  const r = graph.commit(clean, { sessionId: USER_SESSION, sentence, explicit: true });
  return { added: r.relations, updated: r.refreshed };
}

function checkOne(t: unknown, i: number): MemoryTriple {
  const at = `triple #${i + 1}`;
  if (typeof t !== "object" || t === null || Array.isArray(t)) {
    throw new MemoryArgumentError(`${at} must be an object {subject, relation, object, confidence?}`);
  }
  const raw = t as Record<string, unknown>;
  for (const f of FIELDS) {
    const v = raw[f];
    if (typeof v !== "string" || !v.trim() || v.length > COMMIT_LIMITS.fieldChars) {
      throw new MemoryArgumentError(
        `${at}: ${f} must be a non-empty string of at most ${COMMIT_LIMITS.fieldChars} characters, got ${describe(v)}`,
      );
    }
  }
  const confidence = raw.confidence ?? COMMIT_LIMITS.defaultConfidence;
  if (typeof confidence !== "number" || !(confidence > 0 && confidence <= 1)) {
    throw new MemoryArgumentError(
      `${at}: confidence must be a number above 0 and at most 1, got ${describe(confidence)}`,
    );
  }
  const triple = { subject: raw.subject, relation: raw.relation, object: raw.object, confidence } as MemoryTriple;
  // The graph's own rules (name lengths, a letter in each name, subject ≠ object), checked before any write.
  const problem = checkTriple(triple);
  if (typeof problem === "string") throw new MemoryArgumentError(`${at}: ${problem}`);
  return triple;
}
