/** The memory routes over real HTTP against the mock SDK: what each passes to memory, and what it refuses. */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { type ErrorCode, type ForgetReport, type MemoryDoc, type MemoryRelation, SdkError } from "@homeagent/sdk";
import { createMockSDK } from "@homeagent/sdk/test";
import { type RoutesServer, serveRoutes, TEST_LIMITS } from "../../../../test/fixtures/webui-routes.js";
import type { WebLimits } from "../context.js";
import { memoryRoutes } from "./memory.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever shape the route answers
const read = async (res: Response): Promise<any> => res.json();

let server: RoutesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const DOC: MemoryDoc = {
  id: "d1",
  summary: "关于猫",
  content: "我的猫叫小花",
  tags: [],
  entities: ["小花"],
  source: "manual",
  createdAt: 1,
  updatedAt: 1,
  accessCount: 0,
  tsStart: 1,
  tsEnd: 1,
};

const FACT: MemoryRelation = {
  id: 7,
  subject: "我",
  relation: "住在",
  object: "上海",
  confidence: 0.9,
  status: "active",
  createdAt: 1,
  updatedAt: 1,
};

function report(query: string, confirmed: boolean): ForgetReport {
  const zero = {
    context: 0,
    documents: 0,
    entities: 0,
    relations: 0,
    sentences: 0,
    traits: 0,
    types: 0,
    rejections: 0,
    distill: 0,
    textLog: 0,
    indexItems: 0,
    backups: 0,
    history: 0,
    inbox: 0,
    approvals: 0,
    transcripts: 0,
  };
  return {
    query,
    confirmed,
    matched: { ...zero, context: 1 },
    removed: confirmed ? { ...zero, context: 1 } : zero,
    samples: [],
    plugins: [],
    knowledge: { matched: 0, paths: [], removed: 0 },
  };
}

async function start(limits: Partial<WebLimits> = {}) {
  const calls: Array<[string, unknown[]]> = [];
  const record =
    <T>(name: string, answer: T) =>
    async (...args: unknown[]) => {
      calls.push([name, args]);
      return answer;
    };
  const sdk = createMockSDK({
    pluginName: "webui",
    memory: {
      recall: record("recall", { entities: [], relations: [] }),
      commit: record("commit", { added: 1, updated: 0 }),
      editFact: async (id, change) => {
        calls.push(["editFact", [id, change]]);
        if (id !== 7) throw new SdkError({ code: "graph_not_found", message: `there is no fact #${id} in memory` });
        return { removed: 1, fact: { ...FACT, id: 8, ...change } };
      },
      deleteFact: async (id) => {
        calls.push(["deleteFact", [id]]);
        if (id !== 7) throw new SdkError({ code: "graph_not_found", message: `there is no fact #${id} in memory` });
        return { removed: 2 };
      },
      forget: async (query, opts) => {
        calls.push(["forget", [query, opts]]);
        return report(query, opts.confirm);
      },
      graph: record("graph", { nodes: [], edges: [], total: 0 }),
      search: record("search", []),
      timeline: record("timeline", []),
    },
    docMemory: {
      list: record("list", { items: [DOC], total: 1 }),
      query: record("query", [DOC]),
      get: async (id) => (id === "d1" ? DOC : null),
    },
    preview: async (query) => ({ query, contextWindow: 8192, budget: 6553, sections: [] }),
  });
  server = await serveRoutes([memoryRoutes], sdk, { ...TEST_LIMITS, ...limits });
  const url = server.url;
  const json = (method: string, path: string, body: unknown) =>
    fetch(url + path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { calls, url, json };
}

describe("memory routes", () => {
  it("pass their parameters through, Chinese included", async () => {
    const { calls, url, json } = await start();
    const q = encodeURIComponent("小花");
    assert.deepEqual(await read(await fetch(`${url}/api/v1/memory?q=${q}&depth=3`)), { entities: [], relations: [] });
    const triples = [{ subject: "我", relation: "养了", object: "小花" }];
    assert.deepEqual(await read(await json("POST", "/api/v1/memory", { triples, sentence: "我养了小花" })), {
      added: 1,
      updated: 0,
    });
    await fetch(`${url}/api/v1/memory/graph?offset=10&limit=5`);
    await fetch(`${url}/api/v1/memory/search?q=${q}&kinds=doc,turn&limit=3`);
    assert.deepEqual(await read(await fetch(`${url}/api/v1/memory/docs?offset=0&limit=2`)), { items: [DOC], total: 1 });
    assert.deepEqual(await read(await fetch(`${url}/api/v1/memory/docs?q=${q}`)), { items: [DOC], total: 1 });
    assert.deepEqual(await read(await fetch(`${url}/api/v1/memory/timeline`)), { events: [] });
    assert.deepEqual(calls, [
      ["recall", ["小花", { depth: 3 }]],
      ["commit", [triples, { sentence: "我养了小花" }]],
      ["graph", [{ offset: 10, limit: 5 }]],
      ["search", ["小花", { kinds: ["doc", "turn"], limit: 3 }]],
      ["list", [{ offset: 0, limit: 2 }]],
      ["query", ["小花", 50]],
      ["timeline", []],
    ]);
    const context = await read(await fetch(`${url}/api/v1/memory/context?q=${q}`));
    assert.equal(context.query, "小花");
  });

  it("forget previews unless confirm is true", async () => {
    const { json } = await start();
    const preview = await read(await json("DELETE", "/api/v1/memory", { query: "小花" }));
    assert.equal(preview.confirmed, false);
    const done = await read(await json("DELETE", "/api/v1/memory", { query: "小花", confirm: true }));
    assert.equal(done.confirmed, true);
    const bad = await json("DELETE", "/api/v1/memory", { query: "小花", confirm: "yes" });
    assert.equal(bad.status, 400);
    assert.match((await read(bad)).error.message, /confirm/);
  });

  it("edits and deletes one fact by its id; a stale id is 404 with memory's message", async () => {
    const { calls, json } = await start();
    const edited = await json("PUT", "/api/v1/memory/facts/7", { object: "北京", ignored: "x" });
    assert.equal(edited.status, 200);
    assert.deepEqual(await read(edited), { removed: 1, fact: { ...FACT, id: 8, object: "北京" } });
    const deleted = await json("DELETE", "/api/v1/memory/facts/7", {});
    assert.deepEqual(await read(deleted), { removed: 2 });
    for (const [method, body] of [
      ["PUT", { object: "北京" }],
      ["DELETE", undefined],
    ] as const) {
      const stale = await json(method, "/api/v1/memory/facts/9", body);
      assert.equal(stale.status, 404, method);
      assert.deepEqual((await read(stale)).error, {
        code: "graph_not_found",
        message: "there is no fact #9 in memory",
      });
    }
    assert.deepEqual(calls, [
      ["editFact", [7, { object: "北京" }]],
      ["deleteFact", [7]],
      ["editFact", [9, { object: "北京" }]],
      ["deleteFact", [9]],
    ]);
  });

  it("refuses a bad fact id or correction with 400 before memory sees it", async () => {
    const { calls, json } = await start();
    for (const id of ["0", "-1", "abc", "1e3", "0x10", "1.5", "01", "99999999999999999", "%20"]) {
      for (const method of ["PUT", "DELETE"]) {
        const res = await json(method, `/api/v1/memory/facts/${id}`, { object: "北京" });
        assert.equal(res.status, 400, `${method} ${id}`);
        assert.match((await read(res)).error.message, /^id must be a fact's id/, `${method} ${id}`);
      }
    }
    const cases: Array<[unknown, RegExp]> = [
      [{ object: 42 }, /^object must be a string/],
      [{ subject: "" }, /^subject must be 1 to 512 characters/],
      [{ relation: "r".repeat(513) }, /^relation must be 1 to 512 characters/],
      [[], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const res = await json("PUT", "/api/v1/memory/facts/7", body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match((await read(res)).error.message, message);
    }
    assert.equal(calls.length, 0, "nothing reached memory");
  });

  it("answers a missing document 404 and a present one in full", async () => {
    const { url } = await start();
    assert.equal((await read(await fetch(`${url}/api/v1/memory/docs/d1`))).content, "我的猫叫小花");
    const missing = await fetch(`${url}/api/v1/memory/docs/nope`);
    assert.equal(missing.status, 404);
    assert.equal((await read(missing)).error.code, "not_found");
  });

  it("refuses bad parameters with 400 naming the parameter", async () => {
    const { url, json, calls } = await start();
    const cases: Array<[string, string]> = [
      ["/api/v1/memory", "q"],
      ["/api/v1/memory?q=x&depth=9", "depth"],
      ["/api/v1/memory?q=x&depth=two", "depth"],
      ["/api/v1/memory/graph?limit=1001", "limit"],
      ["/api/v1/memory/graph?offset=-1", "offset"],
      ["/api/v1/memory/context", "q"],
      [`/api/v1/memory/context?q=${"x".repeat(2000)}`, "q"],
      ["/api/v1/memory/search?q=x&kinds=doc,secrets", "kinds"],
      ["/api/v1/memory/search?q=x&limit=0", "limit"],
      ["/api/v1/memory/docs?limit=500", "limit"],
    ];
    for (const [path, param] of cases) {
      const res = await fetch(url + path);
      assert.equal(res.status, 400, path);
      assert.match((await read(res)).error.message, new RegExp(`^${param} `), path);
    }
    const noTriples = await json("POST", "/api/v1/memory", { triples: "x" });
    assert.equal(noTriples.status, 400);
    assert.match((await read(noTriples)).error.message, /triples/);
    const noQuery = await json("DELETE", "/api/v1/memory", { confirm: true });
    assert.equal(noQuery.status, 400);
    assert.match((await read(noQuery)).error.message, /query/);
    assert.equal(calls.length, 0, "nothing reached memory");
  });

  it("holds every limit: bodies, queries, ids and sentences", async () => {
    const { url, json, calls } = await start({ maxJsonBytes: 5000 });
    const triples = [{ subject: "Alice", relation: "likes", object: "tea" }];
    const cases: Array<[Promise<Response>, number, RegExp]> = [
      [json("POST", "/api/v1/memory", { triples, sentence: "s".repeat(6000) }), 413, /limit of 5000 bytes/],
      [json("POST", "/api/v1/memory", { triples, sentence: "s".repeat(4097) }), 400, /^sentence must be 1 to 4096/],
      [json("DELETE", "/api/v1/memory", { query: "长".repeat(400) }), 413, /^query is over its limit of 1024 bytes/],
      [fetch(`${url}/api/v1/memory?q=${"q".repeat(1025)}`), 400, /^q must be at most 1024/],
      [fetch(`${url}/api/v1/memory/search?q=${"q".repeat(1025)}`), 400, /^q must be at most 1024/],
      [fetch(`${url}/api/v1/memory/docs/${"d".repeat(257)}`), 400, /^id must be at most 256/],
      [fetch(`${url}/api/v1/memory/graph?offset=1000000001`), 400, /^offset /],
    ];
    for (const [res, status, message] of cases) {
      const answer = await res;
      assert.equal(answer.status, status, String(message));
      assert.match((await read(answer)).error.message, message);
    }
    assert.equal(calls.length, 0, "nothing reached memory");
  });

  it("answers memory's own refusals 4xx with its message, not 500", async () => {
    const refuse = (code: ErrorCode, message: string) => async () => {
      throw new SdkError({ code, message });
    };
    const sdk = createMockSDK({
      pluginName: "webui",
      memory: {
        recall: refuse("graph_limit", "recall takes at most 20 keywords and names, got 100"),
        forget: refuse("forget_too_short", "say what to forget in at least 2 characters"),
        commit: refuse("graph_bad_argument", "triple #1 is not valid"),
        search: refuse("memory_bad_kind", "kinds must be …"),
      },
      docMemory: { get: refuse("doc_invalid", "bad id") },
    });
    server = await serveRoutes([memoryRoutes], sdk);
    const { url } = server;
    const send = (method: string, path: string, body: unknown) =>
      fetch(url + path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const answers: Array<[Response, string]> = [
      [await fetch(`${url}/api/v1/memory?q=a,b,c`), "graph_limit"],
      [await send("DELETE", "/api/v1/memory", { query: "*" }), "forget_too_short"],
      [await send("POST", "/api/v1/memory", { triples: [{}] }), "graph_bad_argument"],
      [await fetch(`${url}/api/v1/memory/search?q=x`), "memory_bad_kind"],
      [await fetch(`${url}/api/v1/memory/docs/x`), "doc_invalid"],
    ];
    for (const [res, code] of answers) {
      assert.equal(res.status, 400, code);
      assert.equal((await read(res)).error.code, code);
    }
    assert.deepEqual(server.errors, [], "no refusal was logged as a server failure");
  });

  it("answers 503 while memory is not running", async () => {
    const sdk = createMockSDK({ pluginName: "webui" });
    server = await serveRoutes([memoryRoutes], sdk);
    const res = await fetch(`${server.url}/api/v1/memory/timeline`);
    assert.equal(res.status, 503);
    assert.equal((await read(res)).error.code, "memory_unavailable");
  });
});
