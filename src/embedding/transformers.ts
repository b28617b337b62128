/**
 * The local unified-space tier: an ONNX sentence-embedding model folder (config.json, tokenizer.json,
 * onnx/model.onnx — the layout of the Xenova/* and onnx-community exports) run through
 * @huggingface/transformers. That package is an optional dependency, so it is imported only when this
 * tier is configured, and remote loading is switched off: a model is never downloaded at run time.
 */
import fs from "node:fs";
import path from "node:path";
import { errorMessage } from "../util/errors.js";
import { EmbeddingError } from "./errors.js";
import {
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingInfo,
  type EmbeddingInput,
  type EmbeddingProvider,
} from "./spi.js";
import { textsOf } from "./text-only.js";

/** A variable, so the compiler does not require the optional package to be installed. */
const MODULE = "@huggingface/transformers";
const REQUIRED_FILES = ["config.json", "tokenizer.json", path.join("onnx", "model.onnx")];
/** Texts per forward pass; the pipeline pads each batch to its longest text. */
const BATCH = 32;

interface Tensor {
  dims: number[];
  data: Float32Array;
}
type Extractor = (texts: string[], opts: { pooling: "mean"; normalize: boolean }) => Promise<Tensor>;

export class TransformersEmbedder implements EmbeddingProvider {
  readonly specificationVersion = EMBEDDING_SPECIFICATION_VERSION;
  readonly name = "transformers";

  private constructor(
    private readonly extract: Extractor,
    private readonly details: EmbeddingInfo,
  ) {}

  /** Loads the model in `modelPath` and embeds one probe text to learn its dimension. */
  static async load(modelPath: string): Promise<TransformersEmbedder> {
    const dir = path.resolve(modelPath);
    const onnxStat = checkFolder(dir);
    let lib: {
      env: Record<string, unknown>;
      pipeline: (task: string, model: string, opts: object) => Promise<Extractor>;
    };
    try {
      lib = await import(MODULE);
    } catch (err) {
      throw new EmbeddingError({
        code: "embedding_unavailable",
        message: `the transformers embedding tier needs the optional package ${MODULE}, which did not load (${errorMessage(err)}); reinstall with optional dependencies or choose another core.embedding.provider`,
        cause: err,
      });
    }
    // The library's settings are global: the last folder loaded decides them, which is fine because a
    // pipeline reads them only while it loads.
    lib.env.allowRemoteModels = false;
    lib.env.allowLocalModels = true;
    lib.env.localModelPath = `${path.dirname(dir)}${path.sep}`;
    let extract: Extractor;
    let probe: Tensor;
    try {
      extract = await lib.pipeline("feature-extraction", path.basename(dir), { dtype: "fp32" });
      probe = await extract(["probe"], { pooling: "mean", normalize: true });
    } catch (err) {
      throw new EmbeddingError({
        code: "embedding_unavailable",
        message: `transformers model folder ${dir} could not be loaded: ${errorMessage(err)}; use an ONNX export of a sentence-embedding model`,
        cause: err,
      });
    }
    const dimension = probe.dims[1];
    const fingerprint = `transformers:${path.basename(dir)}:${onnxStat.size}-${Math.floor(onnxStat.mtimeMs)}:d${dimension}`;
    return new TransformersEmbedder(extract, { dimension, fingerprint, modalities: ["text"] });
  }

  info(): EmbeddingInfo {
    return this.details;
  }

  async embed(inputs: EmbeddingInput[], opts: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const texts = textsOf(this.name, inputs);
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      opts.signal?.throwIfAborted();
      const batch = texts.slice(i, i + BATCH);
      const { data } = await this.extract(batch, { pooling: "mean", normalize: true });
      const d = this.details.dimension;
      for (let j = 0; j < batch.length; j++) out.push(data.slice(j * d, (j + 1) * d));
    }
    return out;
  }
}

/** Fails with a message that names what is missing; returns the model file's stat for the fingerprint. */
function checkFolder(dir: string): fs.Stats {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new EmbeddingError({
      code: "embedding_config",
      message: `transformers model folder ${dir} does not exist; set core.embedding.transformers.model_path`,
    });
  }
  const missing = REQUIRED_FILES.filter((f) => !fs.existsSync(path.join(dir, f)));
  if (missing.length > 0) {
    throw new EmbeddingError({
      code: "embedding_config",
      message: `transformers model folder ${dir} is missing ${missing.join(", ")}; it needs ${REQUIRED_FILES.join(", ")} (an ONNX export)`,
    });
  }
  return fs.statSync(path.join(dir, REQUIRED_FILES[2]));
}
