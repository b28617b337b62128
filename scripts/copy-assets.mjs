// Copies non-TypeScript runtime assets (bundled Lua adapters) next to the compiled code.
import { cpSync, mkdirSync } from "node:fs";

mkdirSync("dist/llm/adapters", { recursive: true });
cpSync("src/llm/adapters", "dist/llm/adapters", { recursive: true, filter: (p) => !p.endsWith(".ts") });
