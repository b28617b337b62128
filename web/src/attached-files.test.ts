/** The attached-file notes of a tool result (an MCP image, say) read out for the chat's links and thumbnails. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { attachedFiles, isImage } from "./attached-files";

describe("attachedFiles", () => {
  it("reads each note with its name, size, type and URL, in order, once each", () => {
    const text = [
      "Here is the chart:",
      "[attached file: uploads/mcp-fixture-0123456789abcdef.png (12.5 KB, image/png)]",
      "and the data [attached file: uploads/数据 (1).csv (532 B, text/csv)]",
      "[attached file: uploads/mcp-fixture-0123456789abcdef.png (12.5 KB, image/png)]",
    ].join("\n");
    const files = attachedFiles(text);
    assert.deepEqual(files, [
      {
        name: "mcp-fixture-0123456789abcdef.png",
        size: "12.5 KB",
        type: "image/png",
        url: "/uploads/mcp-fixture-0123456789abcdef.png",
      },
      { name: "数据 (1).csv", size: "532 B", type: "text/csv", url: `/uploads/${encodeURIComponent("数据 (1).csv")}` },
    ]);
    assert.deepEqual(files.map(isImage), [true, false]);
  });

  it("finds nothing in a result without notes, and no path that leaves the uploads folder", () => {
    assert.deepEqual(attachedFiles("sunny in Paris"), []);
    assert.deepEqual(attachedFiles("[attached file: uploads/../x.png (1 KB, image/png)]"), []);
    assert.deepEqual(attachedFiles("[attached file: uploads/a.svg (1 KB, image/svg+xml)]").map(isImage), [false]);
  });

  it("shows at most 20 files of one result", () => {
    const many = Array.from({ length: 30 }, (_, i) => `[attached file: uploads/f${i}.png (1 KB, image/png)]`).join("");
    assert.equal(attachedFiles(many).length, 20);
  });
});
