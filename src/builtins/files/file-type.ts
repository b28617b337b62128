/**
 * Whether a file is text the model can read: UTF-8 without NUL bytes. Anything else is refused with what it
 * looks like (PDF, a ZIP or Office document, an image …) and its size, so the model can say so instead of
 * reading noise.
 */

const MAGIC: ReadonlyArray<[string, number[]]> = [
  ["a PDF document", [0x25, 0x50, 0x44, 0x46]],
  ["a ZIP archive (or a DOCX/XLSX/ODT document)", [0x50, 0x4b, 0x03, 0x04]],
  ["a PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["a JPEG image", [0xff, 0xd8, 0xff]],
  ["a GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["a gzip archive", [0x1f, 0x8b]],
  ["an ELF program", [0x7f, 0x45, 0x4c, 0x46]],
  ["a SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65]],
];

/** undefined for text; else what the bytes look like. */
export function binaryKind(head: Buffer): string | undefined {
  for (const [kind, magic] of MAGIC) {
    if (magic.every((b, i) => head[i] === b)) return kind;
  }
  if (head.includes(0)) return "binary data";
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(trimPartial(head));
    return undefined;
  } catch {
    return "binary data (not UTF-8 text)";
  }
}

/** The head cut at a character boundary: a multi-byte character split at its end is not an error. */
function trimPartial(head: Buffer): Buffer {
  let end = head.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const b = head[end - back];
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (need > back) end -= back;
    break;
  }
  return head.subarray(0, end);
}
