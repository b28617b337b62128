/**
 * Definitions of the core config keys (inventory §7). Defaults live here rather than being seeded into the
 * database, so a stored value always means "the user chose this" and new releases can change defaults.
 * Each definition also carries the rules its values must meet (validate.ts applies them; bounds not given
 * here fall back to per-type defaults there, so every key is bounded).
 */

import { isAbsolute } from "node:path";
import { isTimeZone } from "../util/time-zone.js";
import type { ConfigDef } from "./config-def.js";
import { parseDuration } from "./duration.js";
import { isName, NAME_RULE } from "./validate.js";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const nameOrEmpty = (value: string) => (value === "" || isName(value) ? undefined : `must be a name: ${NAME_RULE}`);
const timeZone = (value: string) =>
  value === "" || isTimeZone(value)
    ? undefined
    : "is not a known IANA time zone (e.g. Europe/Paris, Asia/Shanghai, UTC)";
// Below a second no real provider can answer: such a limit would fail every call at once.
const zeroOrAtLeastASecond = (value: string) => {
  const ms = parseDuration(value);
  return ms === 0 || ms >= SECOND ? undefined : "must be 0 (no limit) or at least 1s";
};
const name = (value: string) => (isName(value) ? undefined : `must be a name: ${NAME_RULE}`);

/**
 * Only what the daemon reads is a setting: a key that is accepted and then ignored misleads. The memory
 * loops' intervals, a plugin folder and a log file come back with the features that read them.
 *
 * Path keys default to "" because their real default depends on the data dir chosen at start (`--data`). */
export const CORE_DEFS: ConfigDef[] = [
  // daemon
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
    maxLength: 1024,
    category: "daemon",
    description:
      "When set, API clients (web UI, CLI over HTTP) must present this key. Env HOMEAGENT_API_KEY overrides it.",
  },

  // llm: settings of every call. Sources are configured one by one (the templates below); the original's
  // single-provider keys core.llm.{base_url,model,api_key,adapter} are gone (see sources.ts).
  {
    key: "core.llm.provider",
    default: "",
    type: "string",
    maxLength: 64,
    check: nameOrEmpty,
    category: "llm",
    description: "Preferred LLM source name, tried first (set by /llm use); empty = priority order.",
  },
  {
    key: "core.llm.temperature",
    default: "0.7",
    type: "float",
    min: 0,
    max: 2,
    category: "llm",
    description: "Sampling temperature, 0–2.",
  },
  {
    key: "core.llm.max_tokens",
    default: "4096",
    type: "int",
    min: 1,
    max: 1_000_000,
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
    min: 0,
    max: 10 * MINUTE,
    category: "llm",
    description: "Wait before the one retry of a transient provider failure.",
  },
  {
    key: "core.llm.first_byte_timeout",
    default: "60s",
    type: "duration",
    min: 0,
    max: HOUR,
    check: zeroOrAtLeastASecond,
    category: "llm",
    description:
      "Give up on a source (and try the next) when its reply has not started within this time; 0 = no limit.",
  },
  {
    key: "core.llm.first_content_timeout",
    default: "5m",
    type: "duration",
    min: 0,
    max: HOUR,
    check: zeroOrAtLeastASecond,
    category: "llm",
    description:
      "Give up on a source (and try the next) when its streamed reply has brought no text, reasoning or tool call within this time of the request; keep-alives and empty chunks do not count. Reasoning models can think for minutes before their first word; 0 = no limit.",
  },
  {
    key: "core.llm.stream_idle_timeout",
    default: "60s",
    type: "duration",
    min: SECOND,
    max: HOUR,
    category: "llm",
    description:
      "Give up on a reply when the source sends nothing for this long in the middle of it; once text has begun, only new text, reasoning or tool calls count (keep-alives do not).",
  },
  {
    key: "core.llm.call_timeout",
    default: "10m",
    type: "duration",
    min: SECOND,
    max: 6 * HOUR,
    category: "llm",
    description: "Longest time one LLM call may take from request to the end of the reply.",
  },
  {
    key: "core.llm.max_response_bytes",
    default: String(4 * 1024 * 1024),
    type: "int",
    min: 1024,
    max: 64 * 1024 * 1024,
    category: "llm",
    description:
      "Largest reply, in bytes: a streamed reply is cut there (the text so far is kept, ending with a note); a whole reply larger than this fails.",
  },

  // llm sources (templates; `*` is the source name)
  {
    key: "core.llm.sources.*.adapter",
    default: "openai",
    type: "string",
    maxLength: 64,
    check: name,
    category: "llm",
    description:
      "Wire adapter of this source: openai, deepseek, anthropic, gemini, mistral, groq, github, ollama, server, or any adapters/<name>.lua.",
  },
  {
    key: "core.llm.sources.*.base_url",
    default: "",
    type: "url",
    category: "llm",
    description: "Base URL of this source.",
    placeholder: "https://api.example.com/v1",
  },
  {
    key: "core.llm.sources.*.model",
    default: "",
    type: "string",
    maxLength: 256,
    category: "llm",
    description: "Model of this source.",
  },
  {
    key: "core.llm.sources.*.api_key",
    default: "",
    type: "password",
    maxLength: 4096,
    category: "llm",
    description: "API key of this source.",
  },
  {
    key: "core.llm.sources.*.priority",
    default: "0",
    type: "int",
    min: -1_000_000,
    max: 1_000_000,
    category: "llm",
    description: "Fallback order: lower is tried first.",
  },
  {
    key: "core.llm.sources.*.max_concurrent",
    default: "8",
    type: "int",
    min: 0,
    max: 1024,
    category: "llm",
    description: "Maximum requests in flight to this source; more wait their turn. 0 = no limit.",
  },
  {
    key: "core.llm.sources.*.context_window",
    default: "0",
    type: "int",
    min: 0,
    max: 100_000_000,
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
    min: 1,
    max: 1000,
    category: "agent",
    description: "Maximum LLM↔tool round trips for one input.",
  },
  {
    key: "core.agent.max_tool_calls_per_round",
    default: "32",
    type: "int",
    min: 1,
    max: 1000,
    category: "agent",
    description:
      "Maximum tool calls run from one LLM reply; the rest are not run and the model is told how many were left out.",
  },
  {
    key: "core.agent.max_context_size",
    default: "30",
    type: "int",
    min: 1,
    max: 10_000,
    category: "agent",
    description: "Messages kept in the working context.",
  },
  {
    key: "core.agent.timezone",
    default: "",
    type: "string",
    maxLength: 64,
    check: timeZone,
    category: "agent",
    description: "IANA time zone of every date the model reads (e.g. Asia/Shanghai); empty = the system's.",
  },
  {
    key: "core.agent.tool_timeout",
    default: "10m",
    type: "duration",
    min: SECOND,
    max: DAY,
    category: "agent",
    description:
      "Deadline of one tool call; a tool still running then is abandoned and the model told it timed out. Tools with their own timeouts (commands, terminals) stop earlier.",
  },
  {
    key: "core.plugin.stage_timeout",
    default: "5s",
    type: "duration",
    min: 100,
    max: 10 * MINUTE,
    category: "agent",
    description: "Deadline of one stage handler; a handler still running then is recorded as failed and skipped.",
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
    type: "url",
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
    maxLength: 256,
    category: "embedding",
    description: "Embedding model name.",
  },
  {
    key: "core.embedding.http.api_key",
    default: "",
    type: "password",
    maxLength: 4096,
    category: "embedding",
    description: "Bearer key for the embeddings server, if it needs one.",
  },
  {
    key: "core.embedding.http.dimension",
    default: "0",
    type: "int",
    min: 0,
    max: 65_536,
    category: "embedding",
    description: "Expected vector width; 0 = take it from the server's first answer.",
  },
  {
    key: "core.embedding.http.batch_size",
    default: "64",
    type: "int",
    min: 1,
    max: 2048,
    category: "embedding",
    description: "Texts per embeddings request.",
  },
  {
    key: "core.embedding.http.timeout",
    default: "30s",
    type: "duration",
    min: SECOND,
    max: 10 * MINUTE,
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
    key: "core.knowledge.path",
    default: "",
    type: "string",
    category: "paths",
    description: "Knowledge base directory (an absolute path); empty = <data>/knowledge.",
    placeholder: "<data>/knowledge",
    check: (value) => (value === "" || isAbsolute(value) ? undefined : "must be an absolute path (or empty)"),
  },
];
