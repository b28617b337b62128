/** The `plugin.files.*` settings, declared so the settings page lists them and every write is validated. */
import type { SettingDef } from "@homeagent/sdk";

export const FILES_SETTINGS: SettingDef[] = [
  {
    key: "dir",
    default: "",
    type: "string",
    maxLength: 4_096,
    pattern: "/.*",
    placeholder: "/home/me/Documents",
    category: "access",
    description:
      "The folder the agent's file tools work in (an absolute path); empty: <data>/workspace. Writes outside the workspace ask you first, and HomeAgent's own data folder (credentials, databases) stays out of reach whatever this says.",
    displayName: "Folder for the file tools",
    translations: {
      zh: {
        displayName: "文件工具的工作文件夹",
        description:
          "助手的文件工具可以访问的文件夹（绝对路径）；留空为 <data>/workspace。在工作区之外写入前会先询问你；无论这里怎么设置，HomeAgent 自己的数据文件夹（凭据、数据库）都不可访问。",
      },
    },
  },
  {
    key: "max_read_bytes",
    default: "100000",
    type: "int",
    min: 1_000,
    max: 10_000_000,
    unit: "bytes",
    category: "access",
    description: "Bytes of a file one files_read returns at most; read on with offset.",
    displayName: "Bytes per file read",
    translations: {
      zh: { displayName: "每次读取的字节数", description: "一次 files_read 最多返回的字节数；用 offset 继续读取。" },
    },
  },
  {
    key: "max_write_bytes",
    default: "1000000",
    type: "int",
    min: 1_000,
    max: 100_000_000,
    unit: "bytes",
    category: "access",
    description: "The largest file files_write and files_edit write.",
    displayName: "Largest file written",
    translations: {
      zh: { displayName: "可写入的最大文件", description: "files_write 和 files_edit 可写入的最大文件。" },
    },
  },
  {
    key: "max_workspace_mb",
    default: "1024",
    type: "int",
    min: 1,
    max: 1_000_000,
    unit: "MiB",
    category: "access",
    description:
      "How much the agent's writes may fill the workspace in all (uploads count too); a write beyond it is refused. Writes also stop while the disk has less than 1 GB free.",
    displayName: "Workspace size limit",
    translations: {
      zh: {
        displayName: "工作区大小上限",
        description:
          "助手写入的文件在工作区里总共最多占用的空间（上传的文件也计入）；超出的写入会被拒绝。磁盘剩余空间不足 1 GB 时也会停止写入。",
      },
    },
  },
];
