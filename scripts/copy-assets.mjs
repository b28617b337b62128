// Copies non-TypeScript runtime assets next to the compiled code: the bundled Lua adapters, and the entry
// files of the Lua, scrub and integrity-check worker threads and of the document process (plain JavaScript,
// so that they run without a loader from src/ and from dist/).
import { copyFileSync, cpSync, mkdirSync } from "node:fs";

mkdirSync("dist/llm/adapters", { recursive: true });
cpSync("src/llm/adapters", "dist/llm/adapters", { recursive: true, filter: (p) => !p.endsWith(".ts") });
mkdirSync("dist/lua", { recursive: true });
copyFileSync("src/lua/lua-worker.js", "dist/lua/lua-worker.js");
mkdirSync("dist/memory", { recursive: true });
copyFileSync("src/memory/scrub-worker.js", "dist/memory/scrub-worker.js");
copyFileSync("src/memory/integrity-worker.js", "dist/memory/integrity-worker.js");
mkdirSync("dist/builtins/files", { recursive: true });
copyFileSync("src/builtins/files/document-worker.js", "dist/builtins/files/document-worker.js");
