/**
 * The mock SDK's stand-ins for daemon services it cannot fake on its own (memory, documents, transcripts,
 * the social graph, knowledge, adapters): each method answers with the function the test passed, and without one it
 * fails as the daemon's would while that service is not there.
 */
import { SdkError } from "../errors.js";
import type { PluginSDK } from "../index.js";
import type { MockSDKOptions } from "./types.js";

/** The groups of the PluginSDK that answer only from what the test passes in `opts`. */
export function givenApis(
  opts: MockSDKOptions,
): Pick<PluginSDK, "memory" | "docMemory" | "transcripts" | "social" | "knowledge" | "adapters"> {
  return {
    memory: {
      recall: (query, o) => answer(opts.memory, "memory", "recall")(query, o),
      search: (query, o) => answer(opts.memory, "memory", "search")(query, o),
      list: (o) => answer(opts.memory, "memory", "list")(o),
      timeline: () => answer(opts.memory, "memory", "timeline")(),
      stats: () => answer(opts.memory, "memory", "stats")(),
      check: (o) => answer(opts.memory, "memory", "check")(o),
      graph: (o) => answer(opts.memory, "memory", "graph")(o),
      history: (o) => answer(opts.memory, "memory", "history")(o),
      commit: (triples, o) => answer(opts.memory, "memory", "commit")(triples, o),
      editFact: (id, change) => answer(opts.memory, "memory", "editFact")(id, change),
      deleteFact: (id) => answer(opts.memory, "memory", "deleteFact")(id),
      runLoop: (loop) => answer(opts.memory, "memory", "runLoop")(loop),
      forget: (query, o) => answer(opts.memory, "memory", "forget")(query, o),
    },
    transcripts: {
      list: (q) => answer(opts.transcripts, "transcripts", "list")(q),
      choose: (id) => answer(opts.transcripts, "transcripts", "choose")(id),
    },
    docMemory: {
      query: (q, topK) => answer(opts.docMemory, "docMemory", "query")(q, topK),
      get: (id) => answer(opts.docMemory, "docMemory", "get")(id),
      list: (o) => answer(opts.docMemory, "docMemory", "list")(o),
    },
    social: {
      person: (person) => answer(opts.social, "social", "person")(person),
      network: (person, depth) => answer(opts.social, "social", "network")(person, depth),
    },
    knowledge: {
      tree: () => given(opts.knowledge, "knowledge", "tree")(),
      get: (path) => given(opts.knowledge, "knowledge", "get")(path),
      put: (path, content) => given(opts.knowledge, "knowledge", "put")(path, content),
      delete: (path) => given(opts.knowledge, "knowledge", "delete")(path),
      search: (query, limit) => given(opts.knowledge, "knowledge", "search")(query, limit),
    },
    adapters: {
      list: () => given(opts.adapters, "adapters", "list")(),
      get: (adapter) => given(opts.adapters, "adapters", "get")(adapter),
      put: (adapter, code) => given(opts.adapters, "adapters", "put")(adapter, code),
      delete: (adapter) => given(opts.adapters, "adapters", "delete")(adapter),
    },
  };
}

/** The test's answer for one memory method, or a rejection saying the mock was given none. */
function answer<T extends object, K extends keyof T>(
  api: Partial<T> | undefined,
  group: string,
  method: K,
): T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never {
  const given = api?.[method] as ((...args: unknown[]) => unknown) | undefined;
  const call = async (...args: unknown[]) => {
    if (!given) {
      throw new SdkError({
        code: "memory_unavailable",
        message: `memory is not available: the mock SDK was given no ${group}.${String(method)}`,
      });
    }
    return given(...args);
  };
  return call as never;
}

/** The test's function for one member, or one that throws (code "unavailable") saying the mock was given none. */
export function given<T extends object, K extends keyof T>(
  api: T | undefined,
  group: string,
  member: K,
): NonNullable<T[K]> {
  const fn = api?.[member];
  if (typeof fn === "function") return fn as NonNullable<T[K]>;
  return (() => {
    throw new SdkError({ code: "unavailable", message: `the mock SDK was given no ${group}.${String(member)}` });
  }) as NonNullable<T[K]>;
}
