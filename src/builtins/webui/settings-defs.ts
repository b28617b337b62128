/**
 * The `plugin.webui.*` settings: declared so the settings page lists them and every write is validated.
 * listen_addr applies when the plugin starts (its form is checked when written); the others on the next
 * request (upload_quota_mb at start).
 */
import type { SettingDef } from "@homeagent/sdk";

export const WEBUI_SETTINGS: SettingDef[] = [
  {
    key: "listen_addr",
    default: "127.0.0.1:8080",
    type: "string",
    maxLength: 300,
    // What parseListenAddress takes (a name, an IPv4 address or a bracketed IPv6 one, and a port up to 65535),
    // so a typo is refused when written instead of failing the next start.
    pattern: `(?:\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+):(?:\\d{1,4}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])`,
    placeholder: "127.0.0.1:8080",
    category: "access",
    description:
      "Address the web server listens on (host:port; applies when the webui plugin starts). Only loopback by default; another address is reachable from other machines and is logged as a warning.",
    displayName: "Listen address",
    translations: {
      zh: {
        displayName: "监听地址",
        description:
          "网页服务器监听的地址（host:port；在 webui 插件启动时生效）。默认只监听本机回环地址；其他地址可被别的机器访问，并会记录一条警告。",
      },
    },
  },
  {
    key: "allowed_hosts",
    default: "",
    type: "string",
    category: "access",
    description:
      "Extra Host names the server answers, comma separated (name or name:port), e.g. a LAN name behind a reverse proxy. Others are refused (DNS-rebinding guard).",
    displayName: "Allowed host names",
    translations: {
      zh: {
        displayName: "允许的主机名",
        description:
          "服务器额外接受的 Host 名称，用逗号分隔（name 或 name:port），例如反向代理后面的局域网名称。其他名称会被拒绝（防 DNS 重绑定）。",
      },
    },
  },
  {
    key: "openai_memory",
    default: "false",
    type: "bool",
    category: "access",
    description: "Record /v1/chat/completions requests in long-term memory (off: the client keeps its own history).",
    displayName: "Remember OpenAI API chats",
    translations: {
      zh: {
        displayName: "记住 OpenAI 接口的对话",
        description: "把 /v1/chat/completions 请求记入长期记忆（关闭时由客户端自己保存历史）。",
      },
    },
  },
  {
    key: "upload_quota_mb",
    default: "1024",
    type: "int",
    min: 1,
    max: 1_048_576,
    category: "access",
    description: "Total size of workspace/uploads/ in MiB; uploads beyond it are refused (applies at start).",
    displayName: "Upload space",
    unit: "MiB",
    translations: {
      zh: {
        displayName: "上传空间",
        description: "workspace/uploads/ 的总大小（MiB）；超出时拒绝上传（启动时生效）。",
      },
    },
  },
  {
    key: "request_log",
    default: "true",
    type: "bool",
    category: "access",
    description: "Log one line per HTTP request (method, path, status, duration, auth kind, address).",
    displayName: "Log each request",
    translations: {
      zh: {
        displayName: "记录每个请求",
        description: "每个 HTTP 请求记一行日志（方法、路径、状态、耗时、认证方式、地址）。",
      },
    },
  },
];
