// A node:test reporter that writes how long each test file took (JSON: { "<file>": ms }), so the next run
// starts the slowest files first and balances the unit tier's shared processes. A file run on its own is
// named by its compiled path (mapped back to the source); a file inside a shared unit process is the
// suite named after its source path.
import { relative } from "node:path";
import { BUILD_DIR } from "./compile.mjs";

function sourceOf(compiled) {
  return relative(BUILD_DIR, relative(process.cwd(), compiled)).replace(/\.js$/, ".ts");
}

export default async function* timings(source) {
  const ms = {};
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { data } = event;
    if (data.nesting !== 0 || !data.file) continue;
    const file = data.name.endsWith(".test.ts") ? data.name : sourceOf(data.file);
    ms[file] = (ms[file] ?? 0) + (data.details?.duration_ms ?? 0);
  }
  yield JSON.stringify(ms);
}
