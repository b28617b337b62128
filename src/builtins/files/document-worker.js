// Extracts the text of a PDF (unpdf, pdf.js) or a DOCX (mammoth) in its own thread (documents.ts): a hostile
// or huge document is bounded by the thread's memory limit and terminated at its time limit, and never
// stalls the daemon. Plain JavaScript, so that it runs without a loader from src/ and from dist/.
import { parentPort, workerData } from "node:worker_threads";

const { kind, bytes, maxPages, maxChars } = workerData;

async function pdfText() {
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

async function docxText() {
  const mammoth = (await import("mammoth")).default;
  const result = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
  return { text: result.value };
}

try {
  const { text, pages } = kind === "pdf" ? await pdfText() : await docxText();
  parentPort.postMessage({ ok: true, text: text.slice(0, maxChars), pages, cut: text.length > maxChars });
} catch (err) {
  parentPort.postMessage({ ok: false, error: String(err instanceof Error ? err.message : err) });
}
