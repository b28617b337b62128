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
    category: "webui",
    description:
      "Address the web server listens on (host:port; applies when the webui plugin starts). Only loopback by default; another address is reachable from other machines and is logged as a warning.",
  },
  {
    key: "allowed_hosts",
    default: "",
    type: "string",
    category: "webui",
    description:
      "Extra Host names the server answers, comma separated (name or name:port), e.g. a LAN name behind a reverse proxy. Others are refused (DNS-rebinding guard).",
  },
  {
    key: "openai_memory",
    default: "false",
    type: "bool",
    category: "webui",
    description: "Record /v1/chat/completions requests in long-term memory (off: the client keeps its own history).",
  },
  {
    key: "upload_quota_mb",
    default: "1024",
    type: "int",
    min: 1,
    max: 1_048_576,
    category: "webui",
    description: "Total size of workspace/uploads/ in MiB; uploads beyond it are refused (applies at start).",
  },
  {
    key: "request_log",
    default: "true",
    type: "bool",
    category: "webui",
    description: "Log one line per HTTP request (method, path, status, duration, auth kind, address).",
  },
];
