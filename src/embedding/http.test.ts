/** The HTTP tier against a fake OpenAI / Ollama embeddings server: batching, errors, limits, secrets. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  type FakeEmbedServer,
  fakeVector,
  startFakeEmbedServer,
} from "../../test/fixtures/embedding/fake-embed-server.js";
import type { EmbeddingError } from "./errors.js";
import { HttpEmbedder } from "./http.js";
import { ErrModalityUnsupported, textInput } from "./spi.js";

let server: FakeEmbedServer;
before(async () => {
  server = await startFakeEmbedServer(8);
});
after(() => server.close());

const close = (a: Float32Array, b: number[]) => a.every((x, i) => Math.abs(x - b[i]) < 1e-5);

test("openai: batches, keeps input order, sends the bearer key, fingerprints model and width", async () => {
  server.requests.length = 0;
  const e = await HttpEmbedder.connect({
    api: "openai",
    baseUrl: `${server.url}/v1/`,
    model: "text-embed",
    apiKey: "sk-test-secret-123456",
    batchSize: 2,
  });
  assert.deepEqual(e.info(), { dimension: 8, fingerprint: "http:openai:text-embed:8", modalities: ["text"] });
  const texts = ["alpha", "beta", "gamma", "delta", "epsilon"];
  const vectors = await e.embed(texts.map(textInput));
  for (const [i, t] of texts.entries()) assert.ok(close(vectors[i], fakeVector(t, 8)), t);
  const calls = server.requests.slice(1); // the first is the connect probe
  assert.deepEqual(
    calls.map((r) => r.input),
    [["alpha", "beta"], ["gamma", "delta"], ["epsilon"]],
  );
  assert.ok(calls.every((r) => r.path === "/v1/embeddings" && r.model === "text-embed"));
  assert.equal(calls[0].authorization, "Bearer sk-test-secret-123456");
});

test("ollama: /api/embed with embeddings in the answer", async () => {
  server.requests.length = 0;
  const e = await HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "nomic-embed-text" });
  const [v] = await e.embed([textInput("你好世界")]);
  assert.ok(close(v, fakeVector("你好世界", 8)));
  assert.equal(server.requests[1].path, "/api/embed");
  assert.equal(server.requests[1].authorization, undefined);
  assert.equal(e.info().fingerprint, "http:ollama:nomic-embed-text:8");
});

test("a width change after the first answer is an error, as is a configured width that does not match", async () => {
  const e = await HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "m" });
  server.dimension = 4;
  try {
    await assert.rejects(e.embed([textInput("x")]), /returned 4 dimensions but the first answer had 8/);
  } finally {
    server.dimension = 8;
  }
  await assert.rejects(
    HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "m", dimension: 1024 }),
    /returned 8 dimensions but core\.embedding\.http\.dimension is 1024/,
  );
  const fixed = await HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "m", dimension: 8 });
  assert.equal(fixed.info().dimension, 8);
});

test("server errors name the status and never show the API key", async () => {
  server.failStatus = 401;
  try {
    await assert.rejects(
      HttpEmbedder.connect({ api: "openai", baseUrl: `${server.url}/v1`, model: "m", apiKey: "sk-test-secret-123456" }),
      (err: Error) => {
        assert.match(err.message, /answered 401/);
        assert.ok(!err.message.includes("sk-test-secret-123456"), err.message);
        assert.ok(!err.message.includes("sk-t"), `no part of the key either: ${err.message}`);
        return true;
      },
    );
  } finally {
    server.failStatus = undefined;
  }
});

test("timeouts and unreachable servers are reported", async () => {
  server.delayMs = 500;
  try {
    await assert.rejects(
      HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "m", timeoutMs: 50 }),
      /no answer within 50 ms/,
    );
  } finally {
    server.delayMs = 0;
  }
  const gone = await startFakeEmbedServer();
  await gone.close();
  await assert.rejects(
    HttpEmbedder.connect({ api: "ollama", baseUrl: gone.url, model: "m" }),
    /unreachable: ECONNREFUSED/,
  );
});

test("answers that are not embeddings are reported as such, whatever their shape", async () => {
  const openai = await HttpEmbedder.connect({ api: "openai", baseUrl: `${server.url}/v1`, model: "m" });
  const ollama = await HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "m" });
  try {
    for (const [e, body] of [
      [openai, "null"],
      [openai, '{"data":[null]}'],
      [openai, '{"data":[{"index":0,"embedding":[1,"x"]}]}'],
      [ollama, "null"],
      [ollama, '{"embeddings":[[]]}'],
    ] as const) {
      server.rawBody = body;
      await assert.rejects(e.embed([textInput("x")]), (err: EmbeddingError) => {
        assert.equal(err.code, "embedding_invalid_data", body);
        assert.match(err.message, /sent no (openai|ollama) embeddings/, body);
        return true;
      });
    }
  } finally {
    server.rawBody = undefined;
  }
});

test("an answer larger than the limit is refused with what to change, not read whole", async () => {
  const e = await HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "m", maxResponseBytes: 2000 });
  const texts = Array.from({ length: 100 }, (_, i) => textInput(`text number ${i}`));
  await assert.rejects(e.embed(texts), (err: EmbeddingError) => {
    assert.equal(err.code, "embedding_invalid_data");
    assert.match(err.message, /answered more than 2000 bytes for 64 texts; lower core\.embedding\.http\.batch_size/);
    return true;
  });
});

test("bad settings are refused before any request", async () => {
  await assert.rejects(
    HttpEmbedder.connect({ api: "ollama", baseUrl: "", model: "m" }),
    /needs core\.embedding\.http\.base_url/,
  );
  await assert.rejects(
    HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "" }),
    /needs core\.embedding\.http\.model/,
  );
  await assert.rejects(
    HttpEmbedder.connect({ api: "grpc" as "openai", baseUrl: server.url, model: "m" }),
    /must be "openai" or "ollama"/,
  );
});

test("images are refused with ErrModalityUnsupported before any request", async () => {
  const e = await HttpEmbedder.connect({ api: "ollama", baseUrl: server.url, model: "m" });
  const before = server.requests.length;
  await assert.rejects(e.embed([{ data: new Uint8Array([1]), mime: "image/png" }]), ErrModalityUnsupported);
  assert.equal(server.requests.length, before);
});
