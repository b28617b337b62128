// Extracts the text of a PDF (unpdf, pdf.js) or a DOCX (mammoth) in a process of its own, started by
// documents.ts, which caps its heap, watches its resident memory and SIGKILLs it over its limits: a hostile
// document can take this process down, never the daemon. The document comes on stdin and the result goes
// to fd 3 as JSON, because pdf.js writes to the console. Plain JavaScript, an ES module by the repository's
// package.json, so that it runs without a loader from src/ and from dist/ and finds unpdf and mammoth in
// the repository's node_modules from both.
import { writeSync } from "node:fs";

const kind = process.argv[2];
const maxPages = Number(process.argv[3]);
const maxChars = Number(process.argv[4]);

// A daemon killed outright cannot SIGKILL this process; orphaned, it stops itself rather than read on.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(1);
}, 500).unref();

async function pdfText(bytes) {
  const { getDocumentProxy } = await import("unpdf");
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  const parts = [];
  let total = 0;
  for (let n = 1; n <= Math.min(pdf.numPages, maxPages) && total < maxChars; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    const text = content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
    parts.push(text);
    total += text.length;
  }
  return { text: parts.join("\n\n"), pages: pdf.numPages };
}

async function docxText(bytes) {
  const mammoth = (await import("mammoth")).default;
  const result = await mammoth.extractRawText({ buffer: bytes });
  return { text: result.value };
}

let result;
try {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  const { text, pages } = kind === "pdf" ? await pdfText(bytes) : await docxText(bytes);
  result = { ok: true, text: text.slice(0, maxChars), pages, cut: text.length > maxChars };
} catch (err) {
  result = { ok: false, error: String(err instanceof Error ? err.message : err) };
}
const out = Buffer.from(JSON.stringify(result));
for (let at = 0; at < out.length; ) at += writeSync(3, out, at);
process.exit(0);
