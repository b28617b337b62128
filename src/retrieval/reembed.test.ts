/** Background re-embedding: progress, stop and resume across restarts, writes during a run, switching back. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { WordEmbedder } from "../../test/fixtures/embedding/word-embedder.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { RetrievalError } from "./errors.js";
import type { ReembedProgress } from "./reembed.js";
import { SearchIndex } from "./search.js";

const dir = tempDir("reembed-test-");

const ITEMS = Array.from({ length: 50 }, (_, i) => ({ id: `n${i}`, text: `note ${i} about topic${i % 7} and river` }));

function vecTables(index: SearchIndex): string[] {
  return index.db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE name GLOB 'search_vec_*_q' AND type = 'table'")
    .all()
    .map((r) => r.name);
}

test("a fingerprint change re-embeds in the background, resumes after a restart, then drops the old space", async () => {
  const path = join(dir, "resume.db");
  let index = new SearchIndex(path, { embedder: new WordEmbedder("old") });
  await index.add(ITEMS);
  assert.equal(vecTables(index).length, 1);
  await index.close();

  // Restart with a new model; stop the job after two batches, as if the daemon were shut down.
  const model = new WordEmbedder("new");
  const seen: ReembedProgress[] = [];
  let stopping: Promise<ReembedProgress> | undefined;
  index = new SearchIndex(path, {
    embedder: model,
    reembed: {
      batchSize: 10,
      onProgress: (p) => {
        seen.push(p);
        if (p.state === "running" && p.done === 20) stopping = index.reembed()?.stop();
      },
    },
  });
  const firstRun = index.reembed();
  assert.equal(firstRun?.status().state, "running");
  assert.equal(firstRun?.status().total, 50);

  // While the job runs, search still answers, by keyword for items not yet re-embedded.
  const during = await index.search("topic3 river", { k: 50 });
  assert.ok(during.length > 0);
  assert.ok(during.some((h) => h.vector === null));

  const stopped = await firstRun.finished;
  assert.equal(stopped.state, "stopped");
  assert.deepEqual(await stopping, stopped, "stop() resolves with the job's final progress");
  assert.deepEqual(
    seen.map((p) => p.done),
    [10, 20, 20],
  );
  assert.equal(index.status().vectors, "partial");
  await index.close();

  // Restart: the job resumes from the persisted cursor instead of starting over.
  const resumed: ReembedProgress[] = [];
  index = new SearchIndex(path, { embedder: model, reembed: { batchSize: 10, onProgress: (p) => resumed.push(p) } });
  assert.equal(index.status().reembed?.done, 20);
  const final = await index.reembed()!.finished;
  assert.equal(final.state, "done");
  assert.deepEqual([final.done, final.total], [50, 50]);
  assert.equal(model.embedded, 50 + 1, "every item embedded exactly once across both runs, plus one query");
  assert.equal(index.status().vectors, "complete");
  assert.equal(vecTables(index).length, 1, "the old fingerprint's table is dropped");
  const hits = await index.search("topic3 river", { k: 50 });
  assert.ok(hits.every((h) => h.vector !== null && h.vector > 0));
  await index.close();
});

test("items added during re-embedding get vectors of the new model and are not embedded twice", async () => {
  const index = new SearchIndex(join(dir, "concurrent.db"), { embedder: new WordEmbedder("old") });
  await index.add(ITEMS);
  const model = new WordEmbedder("new");
  let release!: () => void;
  model.gate = new Promise((r) => {
    release = r;
  });
  index.setEmbedder(model);
  const job = index.reembed()!;
  const adding = index.add([{ id: "late", text: "a late note about the river" }]);
  release();
  await adding;
  assert.equal((await job.finished).state, "done");
  assert.equal(model.embedded, 51);
  const [hit] = await index.search("late note");
  assert.equal(hit.id, "late");
  assert.ok(hit.vector! > 0);
  await index.close();
});

test("items written while another model (or none) is active get vectors when the first model returns", async () => {
  const index = new SearchIndex(join(dir, "switch-back.db"), { embedder: new WordEmbedder("a") });
  await index.add(ITEMS.slice(0, 5));
  index.setEmbedder(null);
  await index.add([{ id: "late", text: "late note about river" }]);
  await index.add([{ id: "n1", text: "note 1 rewritten about river" }]);
  index.setEmbedder(new WordEmbedder("a"));
  assert.equal(index.status().vectors, "partial", "the space lacks the late item and the rewritten one");
  await index.reembed()?.finished;
  assert.equal(index.status().vectors, "complete");
  const hits = await index.search("river", { k: 10, weights: { bm25: 0, vector: 1 } });
  assert.ok(hits.some((h) => h.id === "late" && h.vector !== null));
  assert.ok(hits.some((h) => h.id === "n1" && h.vector !== null));
  await index.close();
});

test("a failed run is reported with the provider's own error as its cause, and search goes on by keyword", async () => {
  const errors: Error[] = [];
  const index = new SearchIndex(":memory:", { onError: (e) => errors.push(e) });
  await index.add(ITEMS.slice(0, 5));
  const model = new WordEmbedder("down");
  model.fail = new Error("model server down");
  index.setEmbedder(model);
  assert.equal((await index.reembed()?.finished)?.state, "failed");
  await waitFor(() => errors.length > 0, "the failure to be reported");
  const [err] = errors;
  assert.ok(err instanceof RetrievalError);
  assert.equal(err.code, "reembed_failed");
  assert.match(err.message, /re-embedding with "words" failed: model server down/);
  assert.equal(err.cause, model.fail);
  assert.equal(index.status().lastError, err.message);
  assert.equal((await index.search("river"))[0]?.vector, null);
  await index.close();
});
