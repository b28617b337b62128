/**
 * Definitions of the core config keys (inventory §7). Defaults live here rather than being seeded into the
 * database, so a stored value always means "the user chose this" and new releases can change defaults.
 */
import type { ConfigType } from "@homeagent/sdk";

export interface ConfigDef {
  /** Full key; a `*` segment matches any one dot-free segment (e.g. an LLM source name). */
  key: string;
  default: string;
  description: string;
  type: ConfigType;
  /** Allowed values of a `select`. */
  options?: string[];
  category: string;
  /** Kept out of `list()`, e.g. internal bookkeeping keys. */
  hidden?: boolean;
  displayName?: string;
  placeholder?: string;
}

/** Path keys default to "" because their real default depends on the data dir chosen at start (`--data`). */
export const CORE_DEFS: ConfigDef[] = [
  // daemon
  {
    key: "core.daemon.heartbeat_interval",
    default: "15s",
    type: "duration",
    category: "daemon",
    description: "How often the daemon runs its heartbeat (background memory work, health).",
  },
  {
    key: "core.daemon.check_interval",
    default: "30s",
    type: "duration",
    category: "daemon",
    description: "How often plugin and provider health is checked.",
  },
  {
    key: "core.daemon.log_level",
    default: "info",
    type: "select",
    options: ["debug", "info", "warn", "error"],
    category: "daemon",
    description: "Lowest level written to the log.",
  },
  {
    key: "core.daemon.api_key",
    default: "",
    type: "password",
    category: "daemon",
    description:
      "When set, API clients (web UI, CLI over HTTP) must present this key. Env HOMEAGENT_API_KEY overrides it.",
  },

  // llm: the single-provider keys of the original; per-source keys are the templates below
  {
    key: "core.llm.provider",
    default: "",
    type: "string",
    category: "llm",
    description: "Preferred LLM source name, tried first (set by /llm use); empty = priority order.",
  },
  { key: "core.llm.model", default: "", type: "string", category: "llm", description: "Default model name." },
  {
    key: "core.llm.base_url",
    default: "",
    type: "string",
    category: "llm",
    description: "Default provider base URL.",
    placeholder: "https://api.example.com/v1",
  },
  { key: "core.llm.api_key", default: "", type: "password", category: "llm", description: "Default provider API key." },
  {
    key: "core.llm.adapter",
    default: "openai",
    type: "string",
    category: "llm",
    description: "Default wire adapter (adapters/<name>.lua).",
  },
  {
    key: "core.llm.temperature",
    default: "0.7",
    type: "string",
    category: "llm",
    description: "Sampling temperature (a number, usually 0–2).",
  },
  {
    key: "core.llm.max_tokens",
    default: "4096",
    type: "int",
    category: "llm",
    description: "Maximum tokens per reply.",
  },
  {
    key: "core.llm.thinking_enabled",
    default: "false",
    type: "bool",
    category: "llm",
    description: "Ask models that support it to think before answering.",
  },
  {
    key: "core.llm.retry_delay",
    default: "2s",
    type: "duration",
    category: "llm",
    description: "Wait before the one retry of a transient provider failure.",
  },
  {
    key: "core.llm.first_byte_timeout",
    default: "60s",
    type: "duration",
    category: "llm",
    description:
      "Give up on a source (and try the next) when its reply has not started within this time; 0 = no limit.",
  },

  // llm sources (templates; `*` is the source name)
  {
    key: "core.llm.sources.*.adapter",
    default: "openai",
    type: "string",
    category: "llm",
    description:
      "Wire adapter of this source: openai, deepseek, anthropic, gemini, mistral, groq, github, ollama, server, or any adapters/<name>.lua.",
  },
  {
    key: "core.llm.sources.*.base_url",
    default: "",
    type: "string",
    category: "llm",
    description: "Base URL of this source.",
    placeholder: "https://api.example.com/v1",
  },
  {
    key: "core.llm.sources.*.model",
    default: "",
    type: "string",
    category: "llm",
    description: "Model of this source.",
  },
  {
    key: "core.llm.sources.*.api_key",
    default: "",
    type: "password",
    category: "llm",
    description: "API key of this source.",
  },
  {
    key: "core.llm.sources.*.priority",
    default: "0",
    type: "int",
    category: "llm",
    description: "Fallback order: lower is tried first.",
  },
  {
    key: "core.llm.sources.*.max_concurrent",
    default: "8",
    type: "int",
    category: "llm",
    description: "Maximum requests in flight to this source; more wait their turn. 0 = no limit.",
  },
  {
    key: "core.llm.sources.*.context_window",
    default: "0",
    type: "int",
    category: "llm",
    description:
      "Context window in tokens; requests are trimmed to 80 % of it. 0 = ask the server (local servers) or assume 32k.",
  },
  {
    key: "core.llm.sources.*.thinking_enabled",
    default: "false",
    type: "bool",
    category: "llm",
    description: "Ask this source's model to think before answering, even when core.llm.thinking_enabled is off.",
  },

  // agent
  {
    key: "core.agent.max_tool_turns",
    default: "10",
    type: "int",
    category: "agent",
    description: "Maximum LLM↔tool round trips for one input.",
  },
  {
    key: "core.agent.max_context_size",
    default: "30",
    type: "int",
    category: "agent",
    description: "Messages kept in the working context.",
  },
  {
    key: "core.agent.system_prompt",
    default: "",
    type: "text",
    category: "agent",
    description: "System prompt; empty = the built-in prompt.",
  },
  {
    key: "core.agent.personal_prompt",
    default: "",
    type: "text",
    category: "agent",
    description: "Persona text added to the system prompt.",
  },
  {
    key: "core.agent.distill_interval",
    default: "30m",
    type: "duration",
    category: "agent",
    description: "How often recent conversation is distilled into memories.",
  },
  {
    key: "core.agent.archive_interval",
    default: "60m",
    type: "duration",
    category: "agent",
    description: "How often old context is archived.",
  },
  {
    key: "core.agent.review_interval",
    default: "120m",
    type: "duration",
    category: "agent",
    description: "How often stored memories are reviewed.",
  },
  {
    key: "core.agent.merge_interval",
    default: "120m",
    type: "duration",
    category: "agent",
    description: "How often duplicate memories are merged.",
  },

  // embedding: which vector tier retrieval uses (unified space → word vectors → lexical)
  {
    key: "core.embedding.provider",
    default: "auto",
    type: "select",
    options: ["auto", "http", "transformers", "static", "lexical"],
    category: "embedding",
    description:
      "Embedding tier; auto = http if configured, else transformers if configured, else static word vectors if configured, else lexical. A tier that fails falls to the next and is reported.",
  },
  {
    key: "core.embedding.http.base_url",
    default: "",
    type: "string",
    category: "embedding",
    description: "Embeddings server; empty = no http tier. OpenAI-compatible base URL (…/v1) or Ollama root.",
    placeholder: "http://127.0.0.1:11434",
  },
  {
    key: "core.embedding.http.api",
    default: "openai",
    type: "select",
    options: ["openai", "ollama"],
    category: "embedding",
    description: "Wire format: openai = POST {base_url}/embeddings, ollama = POST {base_url}/api/embed.",
  },
  {
    key: "core.embedding.http.model",
    default: "",
    type: "string",
    category: "embedding",
    description: "Embedding model name.",
  },
  {
    key: "core.embedding.http.api_key",
    default: "",
    type: "password",
    category: "embedding",
    description: "Bearer key for the embeddings server, if it needs one.",
  },
  {
    key: "core.embedding.http.dimension",
    default: "0",
    type: "int",
    category: "embedding",
    description: "Expected vector width; 0 = take it from the server's first answer.",
  },
  {
    key: "core.embedding.http.batch_size",
    default: "64",
    type: "int",
    category: "embedding",
    description: "Texts per embeddings request.",
  },
  {
    key: "core.embedding.http.timeout",
    default: "30s",
    type: "duration",
    category: "embedding",
    description: "Timeout of one embeddings request.",
  },
  {
    key: "core.embedding.transformers.model_path",
    default: "",
    type: "string",
    category: "embedding",
    description:
      "Local ONNX model folder (config.json, tokenizer.json, onnx/model.onnx) for the transformers tier; never downloaded.",
  },
  {
    key: "core.agent.embedding_model_path",
    default: "",
    type: "string",
    category: "embedding",
    description: "Word vector files for the static tier (fastText .vec or Numberbatch text), comma-separated.",
  },

  // paths
  {
    key: "core.daemon.data_dir",
    default: "",
    type: "string",
    category: "paths",
    description: "Data directory; empty = the one the daemon was started with (--data, default ~/.homeagent).",
    placeholder: "~/.homeagent",
  },
  {
    key: "core.plugin.dir",
    default: "",
    type: "string",
    category: "paths",
    description: "Plugin directory; empty = <data>/plugins.",
    placeholder: "<data>/plugins",
  },
  {
    key: "core.knowledge.path",
    default: "",
    type: "string",
    category: "paths",
    description: "Knowledge base directory; empty = <data>/knowledge.",
    placeholder: "<data>/knowledge",
  },
  {
    key: "core.log.path",
    default: "",
    type: "string",
    category: "paths",
    description: "Log directory; empty = <data>/log.",
    placeholder: "<data>/log",
  },
];
