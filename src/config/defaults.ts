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
    category: "system",
    description: "Lowest level written to the log.",
    displayName: "Log level",
    translations: { zh: { displayName: "日志级别", description: "写入日志的最低级别。" } },
  },
  {
    key: "core.daemon.api_key",
    default: "",
    type: "password",
    maxLength: 1024,
    category: "access",
    description:
      "When set, API clients (web UI, CLI over HTTP) must present this key. Env HOMEAGENT_API_KEY overrides it.",
    displayName: "API key for clients",
    translations: {
      zh: {
        displayName: "客户端 API 密钥",
        description:
          "设置后，API 客户端（网页界面、通过 HTTP 的命令行）必须出示此密钥。环境变量 HOMEAGENT_API_KEY 优先于此处的值。",
      },
    },
  },

  // llm: settings of every call. Sources are configured one by one (the templates below); the original's
  // single-provider keys core.llm.{base_url,model,api_key,adapter} are gone (see sources.ts).
  {
    key: "core.llm.provider",
    default: "",
    type: "string",
    maxLength: 64,
    check: nameOrEmpty,
    category: "models",
    description: "Preferred LLM source name, tried first (set by /llm use); empty = priority order.",
    displayName: "Preferred source",
    translations: {
      zh: { displayName: "首选来源", description: "首先尝试的 LLM 来源名称（由 /llm use 设置）；留空则按优先级顺序。" },
    },
  },
  {
    key: "core.llm.temperature",
    default: "0.7",
    type: "float",
    min: 0,
    max: 2,
    category: "models",
    description: "Sampling temperature, 0–2.",
    displayName: "Temperature",
    translations: { zh: { displayName: "温度", description: "采样温度，0–2。" } },
  },
  {
    key: "core.llm.max_tokens",
    default: "4096",
    type: "int",
    min: 1,
    max: 1_000_000,
    category: "models",
    description: "Maximum tokens per reply.",
    displayName: "Longest reply",
    unit: "tokens",
    translations: { zh: { displayName: "最长回复", description: "每条回复的最大词元数。" } },
  },
  {
    key: "core.llm.thinking_enabled",
    default: "false",
    type: "bool",
    category: "models",
    description: "Ask models that support it to think before answering.",
    displayName: "Think before answering",
    translations: { zh: { displayName: "先思考再回答", description: "让支持思考的模型在回答前先思考。" } },
  },
  {
    key: "core.llm.retry_delay",
    default: "2s",
    type: "duration",
    min: 0,
    max: 10 * MINUTE,
    category: "models",
    description: "Wait before the one retry of a transient provider failure.",
    displayName: "Retry delay",
    translations: { zh: { displayName: "重试等待", description: "来源暂时失败后，唯一一次重试之前的等待时间。" } },
  },
  {
    key: "core.llm.first_byte_timeout",
    default: "60s",
    type: "duration",
    min: 0,
    max: HOUR,
    check: zeroOrAtLeastASecond,
    category: "models",
    description:
      "Give up on a source (and try the next) when its reply has not started within this time; 0 = no limit.",
    displayName: "Wait for the reply to start",
    translations: {
      zh: {
        displayName: "等待回复开始",
        description: "来源的回复在这段时间内没有开始时放弃它（并尝试下一个来源）；0 表示不限。",
      },
    },
  },
  {
    key: "core.llm.first_content_timeout",
    default: "5m",
    type: "duration",
    min: 0,
    max: HOUR,
    check: zeroOrAtLeastASecond,
    category: "models",
    description:
      "Give up on a source (and try the next) when its streamed reply has brought no text, reasoning or tool call within this time of the request; keep-alives and empty chunks do not count. Reasoning models can think for minutes before their first word; 0 = no limit.",
    displayName: "Wait for the first words",
    translations: {
      zh: {
        displayName: "等待第一个字",
        description:
          "流式回复在请求后这段时间内没有带来任何文本、推理或工具调用时放弃该来源（并尝试下一个）；保活消息和空数据块不算。推理模型可能先思考几分钟才说第一个字；0 表示不限。",
      },
    },
  },
  {
    key: "core.llm.stream_idle_timeout",
    default: "60s",
    type: "duration",
    min: SECOND,
    max: HOUR,
    category: "models",
    description:
      "Give up on a reply when the source sends nothing for this long in the middle of it; once text has begun, only new text, reasoning or tool calls count (keep-alives do not).",
    displayName: "Silence in a reply",
    translations: {
      zh: {
        displayName: "回复中途的沉默",
        description:
          "来源在回复中途这么久没有发送任何内容时放弃这条回复；文本开始后，只有新的文本、推理或工具调用才算（保活消息不算）。",
      },
    },
  },
  {
    key: "core.llm.call_timeout",
    default: "10m",
    type: "duration",
    min: SECOND,
    max: 6 * HOUR,
    category: "models",
    description: "Longest time one LLM call may take from request to the end of the reply.",
    displayName: "Longest LLM call",
    translations: { zh: { displayName: "LLM 调用最长时间", description: "一次 LLM 调用从请求到回复结束的最长时间。" } },
  },
  {
    key: "core.llm.max_response_bytes",
    default: String(4 * 1024 * 1024),
    type: "int",
    min: 1024,
    max: 64 * 1024 * 1024,
    category: "models",
    description:
      "Largest reply, in bytes: a streamed reply is cut there (the text so far is kept, ending with a note); a whole reply larger than this fails.",
    displayName: "Largest reply",
    unit: "bytes",
    translations: {
      zh: {
        displayName: "最大回复",
        description:
          "回复的最大字节数：流式回复在此处截断（保留已收到的文本，并以说明结尾）；超过此大小的完整回复会失败。",
      },
    },
  },

  // llm sources (templates; `*` is the source name)
  {
    key: "core.llm.sources.*.adapter",
    default: "openai",
    type: "string",
    maxLength: 64,
    check: name,
    category: "models",
    description:
      "Wire adapter of this source: openai, deepseek, anthropic, gemini, mistral, groq, github, ollama, server, or any adapters/<name>.lua.",
    displayName: "Adapter",
    translations: {
      zh: {
        displayName: "适配器",
        description:
          "此来源的通信适配器：openai、deepseek、anthropic、gemini、mistral、groq、github、ollama、server，或任何 adapters/<name>.lua。",
      },
    },
  },
  {
    key: "core.llm.sources.*.base_url",
    default: "",
    type: "url",
    category: "models",
    description: "Base URL of this source. Moving it to another host removes the stored API key: enter the key again.",
    placeholder: "https://api.example.com/v1",
    displayName: "Base URL",
    translations: {
      zh: {
        displayName: "基础 URL",
        description: "此来源的基础 URL。改到另一个主机时，已保存的 API 密钥会被删除：请重新输入密钥。",
      },
    },
  },
  {
    key: "core.llm.sources.*.model",
    default: "",
    type: "string",
    maxLength: 256,
    category: "models",
    description: "Model of this source.",
    displayName: "Model",
    translations: { zh: { displayName: "模型", description: "此来源的模型。" } },
  },
  {
    key: "core.llm.sources.*.api_key",
    default: "",
    type: "password",
    maxLength: 4096,
    category: "models",
    description: "API key of this source.",
    displayName: "API key",
    translations: { zh: { displayName: "API 密钥", description: "此来源的 API 密钥。" } },
  },
  {
    key: "core.llm.sources.*.priority",
    default: "0",
    type: "int",
    min: -1_000_000,
    max: 1_000_000,
    category: "models",
    description: "Fallback order: lower is tried first.",
    displayName: "Priority",
    translations: { zh: { displayName: "优先级", description: "备用顺序：数值小的先尝试。" } },
  },
  {
    key: "core.llm.sources.*.max_concurrent",
    default: "8",
    type: "int",
    min: 0,
    max: 1024,
    category: "models",
    description: "Maximum requests in flight to this source; more wait their turn. 0 = no limit.",
    displayName: "Requests at once",
    unit: "requests",
    translations: {
      zh: { displayName: "同时请求数", description: "同时发往此来源的最大请求数；更多的请求排队等待。0 表示不限。" },
    },
  },
  {
    key: "core.llm.sources.*.context_window",
    default: "0",
    type: "int",
    min: 0,
    max: 100_000_000,
    category: "models",
    description:
      "Context window in tokens; requests are trimmed to 80 % of it. 0 = ask the server (local servers) or assume 32k.",
    displayName: "Model's context window",
    unit: "tokens",
    translations: {
      zh: {
        displayName: "模型的上下文窗口",
        description: "以词元计的上下文窗口；请求会被裁剪到它的 80%。0 表示询问服务器（本地服务器）或假定为 32k。",
      },
    },
  },
  {
    key: "core.llm.sources.*.thinking_enabled",
    default: "false",
    type: "bool",
    category: "models",
    description: "Ask this source's model to think before answering, even when core.llm.thinking_enabled is off.",
    displayName: "Think before answering",
    translations: {
      zh: {
        displayName: "先思考再回答",
        description: "即使全局的 core.llm.thinking_enabled 关闭，也让此来源的模型先思考再回答。",
      },
    },
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
    displayName: "Tool rounds per message",
    unit: "rounds",
    translations: {
      zh: { displayName: "每条消息的工具轮数", description: "一次输入中 LLM 与工具之间的最大往返次数。" },
    },
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
    displayName: "Tool calls per reply",
    unit: "calls",
    translations: {
      zh: {
        displayName: "每条回复的工具调用数",
        description: "一条 LLM 回复中最多执行的工具调用数；其余的不执行，并告诉模型有多少被省略。",
      },
    },
  },
  {
    key: "core.agent.max_context_size",
    default: "30",
    type: "int",
    min: 1,
    max: 10_000,
    category: "memory",
    description: "Messages kept in the working context (the context window); older ones move into long-term memory.",
    displayName: "Context window size",
    unit: "messages",
    translations: {
      zh: {
        displayName: "上下文窗口大小",
        description: "工作上下文（上下文窗口）中保留的消息数；更早的消息移入长期记忆。",
      },
    },
  },
  {
    key: "core.agent.timezone",
    default: "",
    type: "string",
    maxLength: 64,
    check: timeZone,
    category: "agent",
    description: "IANA time zone of every date the model reads (e.g. Asia/Shanghai); empty = the system's.",
    displayName: "Time zone",
    translations: {
      zh: {
        displayName: "时区",
        description: "模型读到的每个日期所用的 IANA 时区（例如 Asia/Shanghai）；留空则使用系统时区。",
      },
    },
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
    displayName: "Tool call deadline",
    translations: {
      zh: {
        displayName: "工具调用期限",
        description:
          "一次工具调用的期限；到时仍在运行的工具会被放弃，并告诉模型它超时了。有自己超时的工具（命令、终端）会更早停止。",
      },
    },
  },
  {
    key: "core.plugin.stage_timeout",
    default: "5s",
    type: "duration",
    min: 100,
    max: 10 * MINUTE,
    category: "agent",
    description: "Deadline of one stage handler; a handler still running then is recorded as failed and skipped.",
    displayName: "Stage handler deadline",
    translations: {
      zh: { displayName: "阶段处理期限", description: "一个阶段处理器的期限；到时仍在运行的处理器记为失败并跳过。" },
    },
  },
  {
    key: "core.agent.system_prompt",
    default: "",
    type: "text",
    category: "agent",
    description: "System prompt; empty = the built-in prompt.",
    displayName: "System prompt",
    translations: { zh: { displayName: "系统提示词", description: "系统提示词；留空则使用内置提示词。" } },
  },
  {
    key: "core.agent.personal_prompt",
    default: "",
    type: "text",
    category: "agent",
    description: "Persona text added to the system prompt.",
    displayName: "Persona",
    translations: { zh: { displayName: "人设", description: "加到系统提示词中的人设文字。" } },
  },

  // embedding: which vector tier retrieval uses (unified space → word vectors → lexical)
  {
    key: "core.embedding.provider",
    default: "auto",
    type: "select",
    options: ["auto", "http", "transformers", "static", "lexical"],
    category: "memory",
    description:
      "Embedding tier; auto = http if configured, else transformers if configured, else static word vectors if configured, else lexical. A tier that fails falls to the next and is reported.",
    displayName: "Embedding tier",
    translations: {
      zh: {
        displayName: "嵌入层级",
        description:
          "嵌入层级；auto = 已配置 http 则用 http，否则已配置 transformers 则用它，否则已配置静态词向量则用它，否则用词法。失败的层级会降到下一级并报告。",
      },
    },
  },
  {
    key: "core.embedding.http.base_url",
    default: "",
    type: "url",
    category: "memory",
    description:
      "Embeddings server; empty = no http tier. OpenAI-compatible base URL (…/v1) or Ollama root. Moving it to another host removes the stored API key.",
    placeholder: "http://127.0.0.1:11434",
    displayName: "Embeddings server",
    translations: {
      zh: {
        displayName: "嵌入服务器",
        description:
          "嵌入服务器；留空表示不使用 http 层级。OpenAI 兼容的基础 URL（…/v1）或 Ollama 根地址。改到另一个主机时，已保存的 API 密钥会被删除。",
      },
    },
  },
  {
    key: "core.embedding.http.api",
    default: "openai",
    type: "select",
    options: ["openai", "ollama"],
    category: "memory",
    description: "Wire format: openai = POST {base_url}/embeddings, ollama = POST {base_url}/api/embed.",
    displayName: "Embeddings wire format",
    translations: {
      zh: {
        displayName: "嵌入接口格式",
        description: "接口格式：openai = POST {base_url}/embeddings，ollama = POST {base_url}/api/embed。",
      },
    },
  },
  {
    key: "core.embedding.http.model",
    default: "",
    type: "string",
    maxLength: 256,
    category: "memory",
    description: "Embedding model name.",
    displayName: "Embedding model",
    translations: { zh: { displayName: "嵌入模型", description: "嵌入模型名称。" } },
  },
  {
    key: "core.embedding.http.api_key",
    default: "",
    type: "password",
    maxLength: 4096,
    category: "memory",
    description: "Bearer key for the embeddings server, if it needs one.",
    displayName: "Embeddings API key",
    translations: { zh: { displayName: "嵌入 API 密钥", description: "嵌入服务器需要时使用的 Bearer 密钥。" } },
  },
  {
    key: "core.embedding.http.dimension",
    default: "0",
    type: "int",
    min: 0,
    max: 65_536,
    category: "memory",
    description: "Expected vector width; 0 = take it from the server's first answer.",
    displayName: "Vector width",
    translations: { zh: { displayName: "向量维度", description: "预期的向量维度；0 表示取服务器第一次回答的维度。" } },
  },
  {
    key: "core.embedding.http.batch_size",
    default: "64",
    type: "int",
    min: 1,
    max: 2048,
    category: "memory",
    description: "Texts per embeddings request.",
    displayName: "Texts per request",
    unit: "texts",
    translations: { zh: { displayName: "每次请求的文本数", description: "每个嵌入请求包含的文本数。" } },
  },
  {
    key: "core.embedding.http.timeout",
    default: "30s",
    type: "duration",
    min: SECOND,
    max: 10 * MINUTE,
    category: "memory",
    description: "Timeout of one embeddings request.",
    displayName: "Embeddings request timeout",
    translations: { zh: { displayName: "嵌入请求超时", description: "一次嵌入请求的超时时间。" } },
  },
  {
    key: "core.embedding.transformers.model_path",
    default: "",
    type: "string",
    category: "memory",
    description:
      "Local ONNX model folder (config.json, tokenizer.json, onnx/model.onnx) for the transformers tier; never downloaded.",
    displayName: "Local model folder",
    translations: {
      zh: {
        displayName: "本地模型文件夹",
        description:
          "transformers 层级使用的本地 ONNX 模型文件夹（config.json、tokenizer.json、onnx/model.onnx）；从不下载。",
      },
    },
  },
  {
    key: "core.agent.embedding_model_path",
    default: "",
    type: "string",
    category: "memory",
    description: "Word vector files for the static tier (fastText .vec or Numberbatch text), comma-separated.",
    displayName: "Word vector files",
    translations: {
      zh: {
        displayName: "词向量文件",
        description: "静态层级使用的词向量文件（fastText .vec 或 Numberbatch 文本），用逗号分隔。",
      },
    },
  },

  // paths
  {
    key: "core.knowledge.path",
    default: "",
    type: "string",
    category: "memory",
    description: "Knowledge base directory (an absolute path); empty = <data>/knowledge.",
    placeholder: "<data>/knowledge",
    check: (value) => (value === "" || isAbsolute(value) ? undefined : "must be an absolute path (or empty)"),
    displayName: "Knowledge base folder",
    translations: {
      zh: { displayName: "知识库文件夹", description: "知识库目录（绝对路径）；留空则为 <data>/knowledge。" },
    },
  },
];
