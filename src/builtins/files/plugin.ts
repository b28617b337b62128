/**
 * Built-in `files` plugin: files_read, files_write, files_edit, files_ls and files_find, confined to
 * `plugin.files.dir` (default `<data>/workspace`, where the dashboard's uploads land) by confine.ts, with
 * HomeAgent's own data folder out of reach whatever that setting says. A write outside the workspace (when
 * the user widened the folder) asks the user first; writes in it count against its quota (quota.ts).
 */
import { mkdirSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { definePlugin, type Plugin, type PluginSDK, SdkError, type ToolContext } from "@homeagent/sdk";
import { type Area, inside, resolvePath } from "./confine.js";
import { findFiles } from "./find.js";
import { editFile, listFolder, readText, type WriteMode, writeFile } from "./ops.js";
import { WorkspaceQuota } from "./quota.js";
import { FILES_SETTINGS } from "./settings.js";

const WRITE_MODES: WriteMode[] = ["overwrite", "append", "insert", "create"];
const MAX_LIST = 2_000;

export function createFilesPlugin(): Plugin {
  const start = (sdk: PluginSDK): void => {
    sdk.settings.define(FILES_SETTINGS);
    const workspace = join(sdk.daemonDataDir, "workspace");
    mkdirSync(workspace, { recursive: true, mode: 0o700 });
    const quota = new WorkspaceQuota(workspace);
    const number = (key: string) => Number(sdk.settings.get(key));
    // The daemon's own folders, resolved once: only plugin.files.dir can change while it runs.
    const fixed = { dataDir: realpathSync(sdk.daemonDataDir), workspace: realpathSync(workspace) };

    /** Read on every call: a change of plugin.files.dir applies at once. */
    const area = (): Area => {
      const dir = sdk.settings.get("dir") ?? "";
      let root: string;
      try {
        root = realpathSync(dir === "" ? workspace : dir);
      } catch (err) {
        throw new SdkError({
          code: "not_found",
          message: `plugin.files.dir (${dir}) does not exist; the user can fix it in Settings`,
          cause: err,
        });
      }
      return { root, ...fixed };
    };

    /**
     * A write in the workspace counts against its quota; one outside it asks the user (only possible once
     * they widened the folder).
     */
    const mayWrite = async (a: Area, path: string, bytes: number, what: string, ctx: ToolContext): Promise<void> => {
      const real = resolvePath(a, path);
      const max = number("max_write_bytes");
      // Refused before it is counted: a write too big to happen must not use up the quota.
      if (bytes > max) {
        throw new SdkError({
          code: "too_large",
          message: `${bytes} bytes is more than ${max} (plugin.files.max_write_bytes)`,
        });
      }
      if (inside(real, a.workspace)) return quota.take(bytes, number("max_workspace_mb") * 1024 * 1024);
      const outcome = await sdk.ask({
        requestId: ctx.requestId,
        question: `${what} ${real}`,
        subject: JSON.stringify({ what, path: real }),
      });
      if (!outcome.approved) {
        throw new SdkError({
          code: "path_denied",
          message: `${real} is outside the workspace and the user's approval was ${outcome.reason === "denied" ? "refused" : `not given (${outcome.reason})`}`,
        });
      }
    };

    const str = (value: unknown, name: string): string => {
      if (typeof value !== "string") throw new SdkError({ code: "invalid_argument", message: `${name} is a string` });
      return value;
    };
    const int = (value: unknown, fallback: number, min: number, max: number, name: string): number => {
      if (value === undefined || value === null) return fallback;
      const n = Number(value);
      if (!Number.isInteger(n) || n < min || n > max) {
        throw new SdkError({ code: "invalid_argument", message: `${name} is a whole number from ${min} to ${max}` });
      }
      return n;
    };
    const shown = (a: Area, path: string) => (isAbsolute(path) ? relative(a.root, path) || "." : path);

    sdk.registerTool(
      {
        name: "files_read",
        description:
          "Read a text file in the user's workspace (uploads are in uploads/), from line `offset` (1-based), at most `limit` lines. A binary file (PDF, image, archive) is refused with its type.",
        parameters: {
          type: "object",
          properties: {
            path: { type: "string", description: "Relative to the workspace." },
            offset: { type: "integer", description: "First line, 1-based (default 1)." },
            limit: { type: "integer", description: "Lines at most (default 500)." },
          },
          required: ["path"],
        },
      },
      (args) => {
        const a = area();
        const path = str(args.path, "path");
        return readText(
          a,
          path,
          int(args.offset, 1, 1, 100_000_000, "offset"),
          int(args.limit, 500, 1, 100_000, "limit"),
          number("max_read_bytes"),
        );
      },
    );

    sdk.registerTool(
      {
        name: "files_write",
        description:
          "Write a text file in the user's workspace. mode: overwrite (default), append, insert (before `line`), create (only if it does not exist). Atomic: the file is never left half written.",
        parameters: {
          type: "object",
          properties: {
            path: { type: "string" },
            content: { type: "string" },
            mode: { type: "string", enum: WRITE_MODES },
            line: { type: "integer", description: "For insert: the line the content goes before (1-based)." },
          },
          required: ["path", "content"],
        },
      },
      async (args, ctx) => {
        const a = area();
        const path = str(args.path, "path");
        const mode = (args.mode ?? "overwrite") as WriteMode;
        if (!WRITE_MODES.includes(mode)) {
          throw new SdkError({ code: "invalid_argument", message: `mode is one of ${WRITE_MODES.join(", ")}` });
        }
        const content = str(args.content, "content");
        await mayWrite(a, path, Buffer.byteLength(content), "write", ctx);
        const line = args.line === undefined ? undefined : Number(args.line);
        return writeFile(a, path, content, mode, line, number("max_write_bytes"));
      },
    );

    sdk.registerTool(
      {
        name: "files_edit",
        description:
          "Edit a text file in the workspace by replacements: each `old` must occur exactly once in the file; all edits apply, or none.",
        parameters: {
          type: "object",
          properties: {
            path: { type: "string" },
            edits: {
              type: "array",
              items: {
                type: "object",
                properties: { old: { type: "string" }, new: { type: "string" } },
                required: ["old", "new"],
              },
            },
          },
          required: ["path", "edits"],
        },
      },
      async (args, ctx) => {
        const a = area();
        const path = str(args.path, "path");
        const edits = args.edits as Array<{ old: string; new: string }>;
        const added = Array.isArray(edits) ? edits.reduce((n, e) => n + Buffer.byteLength(String(e?.new ?? "")), 0) : 0;
        await mayWrite(a, path, added, "edit", ctx);
        return editFile(a, path, edits, number("max_write_bytes"));
      },
    );

    sdk.registerTool(
      {
        name: "files_ls",
        description: "List a folder of the workspace: name, type, size, modified time.",
        parameters: {
          type: "object",
          properties: {
            path: { type: "string", description: "Relative to the workspace (default: the workspace)." },
            limit: { type: "integer", description: "Entries at most (default 500)." },
          },
        },
        noMemory: true,
      },
      async (args) => {
        const a = area();
        const listed = await listFolder(
          a,
          typeof args.path === "string" ? args.path : "",
          int(args.limit, 500, 1, MAX_LIST, "limit"),
        );
        return { ...listed, path: shown(a, listed.path) };
      },
    );

    sdk.registerTool(
      {
        name: "files_find",
        description:
          "Find files in the workspace by name (a glob such as *.md) and/or by text they contain (case-insensitive).",
        parameters: {
          type: "object",
          properties: {
            path: { type: "string", description: "Folder to search (default: the workspace)." },
            name: { type: "string", description: "File name glob, e.g. *.md or report-*." },
            text: { type: "string", description: "Text the file contains." },
            limit: { type: "integer", description: "Results at most (default 100)." },
          },
        },
        noMemory: true,
      },
      (args) =>
        findFiles(area(), {
          path: typeof args.path === "string" ? args.path : undefined,
          name: typeof args.name === "string" && args.name !== "" ? args.name : undefined,
          text: typeof args.text === "string" && args.text !== "" ? args.text : undefined,
          limit: int(args.limit, 100, 1, 500, "limit"),
        }),
    );
  };

  return definePlugin({ name: "files", start });
}
