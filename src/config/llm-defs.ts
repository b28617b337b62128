/**
 * The LLM settings of the config center: those of every call (temperature, limits, timeouts) and the
 * templates of a source (`core.llm.sources.<name>.*`). Sources are configured one by one; the original's
 * single-provider keys core.llm.{base_url,model,api_key,adapter} are gone (see sources.ts).
 */
import { HOUR, MINUTE, SECOND } from "../util/time-units.js";
import type { ConfigDef } from "./config-def.js";
import { parseDuration } from "./duration.js";
import { isName, NAME_RULE } from "./validate.js";

const nameOrEmpty = (value: string) => (value === "" || isName(value) ? undefined : `must be a name: ${NAME_RULE}`);
const name = (value: string) => (isName(value) ? undefined : `must be a name: ${NAME_RULE}`);
// Below a second no real provider can answer: such a limit would fail every call at once.
const zeroOrAtLeastASecond = (value: string) => {
  const ms = parseDuration(value);
  return ms === 0 || ms >= SECOND ? undefined : "must be 0 (no limit) or at least 1s";
};

export const LLM_DEFS: ConfigDef[] = [
  // settings of every call
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
    agentWritable: true,
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
];
