/** The `plugin.cmd.*` settings, declared so the settings page lists them and every write is validated. */
import type { SettingDef } from "@homeagent/sdk";
import { DEFAULT_ALLOW, MODES } from "./policy.js";

export const CMD_SETTINGS: SettingDef[] = [
  {
    key: "mode",
    default: "ask",
    type: "select",
    options: [...MODES],
    category: "access",
    description:
      "ask: a command matching plugin.cmd.allow runs at once, any other only after you approve that exact command line; allowlist: only the patterns; any: every command (not recommended); off: none.",
    displayName: "Running commands",
    translations: {
      zh: {
        displayName: "运行命令",
        description:
          "ask：匹配 plugin.cmd.allow 的命令立即运行，其他命令需你批准该命令行后才运行；allowlist：只运行匹配的命令；any：运行所有命令（不推荐）；off：不运行任何命令。",
      },
    },
  },
  {
    key: "allow",
    default: DEFAULT_ALLOW.join("\n"),
    type: "text",
    maxLength: 8_000,
    // Shell syntax has no meaning here (commands run without a shell): refused when written, not at use.
    pattern: "[^|&<>$`]*",
    placeholder: "uname -a",
    category: "access",
    description:
      "Commands that run without asking, one a line: whole command lines, where a word with * matches one argument of any text but a path (e.g. date +*). A path argument never matches.",
    displayName: "Commands allowed without asking",
    translations: {
      zh: {
        displayName: "无需询问即可运行的命令",
        description: "每行一条：完整的命令行，含 * 的词匹配任意一个非路径参数（例如 date +*）。路径参数永远不匹配。",
      },
    },
  },
  {
    key: "max_output_bytes",
    default: "32000",
    type: "int",
    min: 1_000,
    max: 1_000_000,
    unit: "bytes",
    category: "access",
    description: "Output kept of each stream (stdout, stderr) of a command; the rest is cut, and the cut said.",
    displayName: "Command output kept",
    translations: {
      zh: {
        displayName: "命令输出保留量",
        description: "每个输出流（stdout、stderr）保留的字节数；其余被截断并注明。",
      },
    },
  },
  {
    key: "background_after",
    default: "10s",
    type: "duration",
    min: 1_000,
    max: 600_000,
    category: "access",
    description:
      "A command still running after this answers “still running” and its result is sent to the chat (or its inbox) when it ends.",
    displayName: "Background after",
    translations: {
      zh: {
        displayName: "转入后台的时间",
        description: "命令运行超过此时间后先答复“仍在运行”，结束时再把结果发送到对话（或其收件箱）。",
      },
    },
  },
];
