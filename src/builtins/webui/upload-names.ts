/**
 * Names and types of uploaded files. A client's file name is only a suggestion: it is reduced to one safe
 * path component (letters of any script, digits, ".", "_", "-"; no leading dot or dash, so no hidden file
 * and nothing a shell command takes for an option), and an extension a browser or an OS would run gets
 * ".bin" added. What is served back is typed by that name alone: a safe image, audio or video type, or
 * application/octet-stream — never HTML, SVG or script.
 */

/** Bytes of a stored name, leaving room for a collision suffix under the usual 255-byte limit. */
const MAX_NAME_BYTES = 150;

const DANGEROUS = new Set([
  // Run by a browser when opened from disk or served inline.
  ...["html", "htm", "xhtml", "xht", "shtml", "mht", "mhtml", "svg", "svgz", "xml", "xsl", "xslt", "js", "mjs"],
  ...["cjs", "jsx", "wasm", "swf", "htc", "xbl", "jnlp"],
  // Run by an OS or a shell when opened.
  ...["exe", "com", "bat", "cmd", "scr", "pif", "msi", "msp", "cpl", "dll", "sys", "ps1", "psm1", "vbs", "vbe"],
  ...["jse", "wsf", "wsh", "hta", "lnk", "reg", "inf", "jar", "sh", "bash", "zsh", "csh", "command", "desktop"],
  ...["appimage", "app", "dmg", "pkg", "deb", "rpm", "apk", "so", "dylib", "php", "phtml", "cgi", "url"],
  ...["application", "scf", "sct", "wsc", "ws", "msc", "gadget", "settingcontent-ms", "library-ms"],
  // Disk images: opening one mounts files that skip the OS's warning for downloaded ones.
  ...["iso", "img", "vhd", "vhdx"],
]);

/** What is served inline-safe by its own type; everything else is application/octet-stream. */
const MEDIA_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  bmp: "image/bmp",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  m4a: "audio/mp4",
  aac: "audio/aac",
  flac: "audio/flac",
  mp4: "video/mp4",
  m4v: "video/mp4",
  webm: "video/webm",
  ogv: "video/ogg",
  mov: "video/quicktime",
};

/** The stored name for what the client called its file. Applying it twice changes nothing. */
export function safeUploadName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? "";
  let name = base
    .normalize("NFC")
    .replace(/[^\p{L}\p{M}\p{N}._-]+/gu, "_")
    .replace(/^[._-]+/, "")
    .replace(/[.]+$/, "");
  if (name === "" || /^_+$/.test(name)) name = "upload";
  if (DANGEROUS.has(extensionOf(name))) name = `${name}.bin`;
  return fitBytes(name, MAX_NAME_BYTES);
}

/** The name with `-n` before its extension: the n-th try after a collision. */
export function numberedName(name: string, n: number): string {
  if (n === 0) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)}-${n}${name.slice(dot)}` : `${name}-${n}`;
}

/** Lower-case extension without the dot; "" when there is none. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** The Content-Type a stored file is served with. */
export function servedType(name: string): string {
  return MEDIA_TYPES[extensionOf(name)] ?? "application/octet-stream";
}

/** A client's declared type if it is a plain `type/subtype`; application/octet-stream otherwise. */
export function declaredType(raw: string | undefined): string {
  const type = (raw ?? "").split(";")[0].trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/.test(type)
    ? type
    : "application/octet-stream";
}

/** Content-Disposition for a download: an ASCII fallback name and the exact one in RFC 5987 form. */
export function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** "532 B", "12.5 KB", "3.0 MB": for the note the agent reads. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Shortens the stem (never the extension) until the name fits in `maxBytes` of UTF-8. */
function fitBytes(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  const ext = extensionOf(name);
  const suffix = ext && Buffer.byteLength(ext) <= 32 ? `.${name.slice(name.length - ext.length)}` : "";
  const stem = [...name.slice(0, name.length - suffix.length)];
  while (stem.length > 1 && Buffer.byteLength(stem.join("") + suffix) > maxBytes) stem.pop();
  return stem.join("") + suffix;
}
