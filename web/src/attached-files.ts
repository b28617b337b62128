/**
 * The files a tool result attached: the MCP client writes each image or other media of a result into the
 * uploads folder and leaves a note "[attached file: uploads/<name> (<size>, <type>)]" in its text (the same
 * note a chat upload gets), which the chat turns into a link, and for an image a thumbnail. One reading of
 * the note for both: chat-state.ts splits a message's note off with noteFile.
 */

export interface AttachedFile {
  name: string;
  /** As the note says it ("12.5 KB"). */
  size: string;
  type: string;
  /** Where GET /uploads/:name serves it. */
  url: string;
}

/** Files one result may show: a result with more names the first ones. */
const MAX_FILES = 20;
/** A name with no folder in it and no leading dot, as the uploads route serves them. */
const NOTE = /\[attached file: uploads\/([^./\]\n][^/\]\n]*?) \(([^(),\n]+), ([a-z0-9.+-]+\/[a-z0-9.+-]+)\)\]/gi;

/** One note, the whole of `text`. */
const ONE_NOTE = new RegExp(`^${NOTE.source}$`, "i");

/** The file a note names, when `text` is exactly one note. */
export function noteFile(text: string): AttachedFile | undefined {
  const m = ONE_NOTE.exec(text);
  return m ? fileOf(m[1], m[2], m[3]) : undefined;
}

function fileOf(name: string, size: string, type: string): AttachedFile {
  return { name, size, type: type.toLowerCase(), url: `/uploads/${encodeURIComponent(name)}` };
}

export function attachedFiles(text: string): AttachedFile[] {
  const files: AttachedFile[] = [];
  for (const [, name, size, type] of text.matchAll(NOTE)) {
    if (files.length === MAX_FILES) break;
    if (files.some((f) => f.name === name)) continue;
    files.push(fileOf(name, size, type));
  }
  return files;
}

/** Shown as a picture: the types GET /uploads serves as images (others only as a link). */
export function isImage(file: AttachedFile): boolean {
  return /^image\/(png|jpeg|gif|webp|avif|bmp)$/.test(file.type);
}
