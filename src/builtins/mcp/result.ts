/**
 * An MCP tool result as the model and the chat read it. Text parts stay text; images, audio and binary
 * resources are written to the workspace's uploads folder — where the dashboard serves (and forget scrubs)
 * what the user attached — and named in the text with the same note a chat attachment gets
 * ("[attached file: uploads/<name> (<size>, <type>)]"), so the chat shows them and the model can refer to
 * them. Everything is bounded: the text is cut at `plugin.mcp.max_result_chars`, each file and all files of
 * one result have a size limit, and what was left out is said.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cleanText } from "./names.js";

/** One file of a result; larger ones are left out, and the text says so. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** All files of one result together. */
const MAX_RESULT_FILE_BYTES = 16 * 1024 * 1024;

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/ogg": "ogg",
  "application/pdf": "pdf",
  "application/gzip": "gz",
  "application/zip": "zip",
  "text/plain": "txt",
  "application/json": "json",
};

type Part = Record<string, unknown>;

export interface ResultText {
  text: string;
  isError: boolean;
  /** The files written, by their uploads-relative names. */
  files: string[];
}

interface Budget {
  left: number;
}

/** Turns `result` (a CallToolResult) into text, writing its media into `uploadsDir`. */
export async function resultText(
  result: Record<string, unknown>,
  opts: { server: string; uploadsDir: string; maxChars: number },
): Promise<ResultText> {
  const lines: string[] = [];
  const files: string[] = [];
  const budget: Budget = { left: MAX_RESULT_FILE_BYTES };
  const content = Array.isArray(result.content) ? (result.content as Part[]) : [];
  for (const part of content) lines.push(await partText(part, opts, budget, files));
  if (content.length === 0 && result.structuredContent !== undefined) {
    lines.push(JSON.stringify(result.structuredContent));
  }
  if (content.length === 0 && result.toolResult !== undefined) lines.push(JSON.stringify(result.toolResult));
  const text = lines.filter(Boolean).join("\n") || "(the tool returned nothing)";
  return { text: capped(text, opts.maxChars), isError: result.isError === true, files };
}

async function partText(
  part: Part,
  opts: { server: string; uploadsDir: string },
  budget: Budget,
  files: string[],
): Promise<string> {
  switch (part.type) {
    case "text":
      return String(part.text ?? "");
    case "image":
    case "audio":
      return mediaNote(String(part.data ?? ""), String(part.mimeType ?? ""), opts, budget, files);
    case "resource": {
      const resource = (part.resource ?? {}) as Part;
      const uri = cleanText(resource.uri, 2048);
      if (typeof resource.text === "string") return `[resource ${uri}]\n${resource.text}`;
      const note = await mediaNote(String(resource.blob ?? ""), String(resource.mimeType ?? ""), opts, budget, files);
      return `[resource ${uri}] ${note}`;
    }
    case "resource_link":
      return `[resource link: ${cleanText(part.name, 200)} ${cleanText(part.uri, 2048)}${part.description ? ` — ${cleanText(part.description, 500)}` : ""}]`;
    default:
      return `[a ${cleanText(part.type, 40) || "part"} the daemon does not show]`;
  }
}

async function mediaNote(
  base64: string,
  mimeType: string,
  opts: { server: string; uploadsDir: string },
  budget: Budget,
  files: string[],
): Promise<string> {
  const type = /^[a-z0-9.+-]{1,64}\/[a-z0-9.+-]{1,64}$/i.test(mimeType)
    ? mimeType.toLowerCase()
    : "application/octet-stream";
  // Decoded size from the base64 length, before decoding anything too large.
  const size = Math.floor((base64.replace(/=+$/, "").length * 3) / 4);
  if (size > MAX_FILE_BYTES || size > budget.left) {
    return `[a ${type} file of ${formatBytes(size)} was left out: over the ${formatBytes(Math.min(MAX_FILE_BYTES, budget.left))} a result may attach]`;
  }
  const bytes = Buffer.from(base64, "base64");
  budget.left -= bytes.length;
  const name = `mcp-${opts.server}-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.${EXTENSIONS[type] ?? "bin"}`;
  await writeAtomically(opts.uploadsDir, name, bytes);
  files.push(name);
  return `[attached file: uploads/${name} (${formatBytes(bytes.length)}, ${type})]`;
}

/** The same bytes get the same name, so writing again is harmless; a reader never sees half a file. */
async function writeAtomically(dir: string, name: string, bytes: Buffer): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${name}.${randomBytes(6).toString("hex")}.part`);
  try {
    await writeFile(temp, bytes, { mode: 0o600, flag: "wx" });
    await rename(temp, join(dir, name));
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… cut: the result was ${text.length} characters; plugin.mcp.max_result_chars keeps ${max}]`;
}

/** "532 B", "12.5 KB", "3.0 MB", as the chat's attachment notes say it. */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
