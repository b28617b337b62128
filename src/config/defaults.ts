/**
 * Definitions of the core config keys (inventory §7; the LLM ones are llm-defs.ts). Defaults live here
 * rather than being seeded into the database, so a stored value always means "the user chose this" and new
 * releases can change defaults.
 * Each definition also carries the rules its values must meet (validate.ts applies them; bounds not given
 * here fall back to per-type defaults there, so every key is bounded).
 */

import { isAbsolute } from "node:path";
import { DAY, HOUR, MINUTE, SECOND } from "../util/time-units.js";
import { isTimeZone } from "../util/time-zone.js";
import type { ConfigDef } from "./config-def.js";
import { LLM_DEFS } from "./llm-defs.js";

const timeZone = (value: string) =>
  value === "" || isTimeZone(value)
    ? undefined
    : "is not a known IANA time zone (e.g. Europe/Paris, Asia/Shanghai, UTC)";

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

  ...LLM_DEFS,

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
    // "I moved to Tokyo": the agent may follow the user; it widens nothing.
    agentWritable: true,
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
    key: "core.agent.approval_timeout",
    default: "2m",
    type: "duration",
    min: SECOND,
    max: HOUR,
    category: "agent",
    description:
      "How long a tool that asks for the user's approval (to run a command, write outside the workspace) waits for an answer in waiter or the dashboard; with no answer by then it is refused.",
    displayName: "Approval wait",
    translations: {
      zh: {
        displayName: "审批等待时间",
        description:
          "需要用户批准的工具（运行命令、在工作区外写入）在 waiter 或仪表盘中等待回答的时间；到时没有回答即视为拒绝。",
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

  // transcripts
  {
    key: "core.transcripts.max_days",
    default: "90",
    type: "int",
    min: 1,
    max: 3650,
    unit: "days",
    category: "memory",
    description:
      "How long the chat history (every turn of every channel, with its tool calls) is kept; older turns are removed. Memory keeps what it remembers separately.",
    displayName: "Chat history kept for",
    translations: {
      zh: {
        displayName: "聊天记录保留天数",
        description:
          "聊天记录（每个渠道的每一轮对话及其工具调用）保留的时间；更早的会被删除。记忆另行保存它记住的内容。",
      },
    },
  },
  {
    key: "core.transcripts.max_mb",
    default: "256",
    type: "int",
    min: 1,
    max: 100_000,
    unit: "MiB",
    category: "memory",
    description:
      "The most text the chat history may keep (its search index and the file's own overhead come on top, up to about as much again); beyond it the oldest turns are removed.",
    displayName: "Chat history size limit",
    translations: {
      zh: {
        displayName: "聊天记录大小上限",
        description: "聊天记录最多保存的文本量（搜索索引和文件自身的开销另计，最多约同样大小）；超出时删除最早的对话。",
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
