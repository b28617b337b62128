/**
 * `/memory …` over the cli socket: look into each layer (graph, documents, context), run a heartbeat loop
 * now, and forget. Forgetting is two steps on purpose: `/memory forget <query>` only shows what matches;
 * `/memory forget --yes <query>` removes it from every layer, index and the raw log, and from what plugins
 * keep; the knowledge base (the user's own notes) is listed, and emptied of it only with `--knowledge`.
 */
import { type FinalFrame, parseForgetArgs } from "@homeagent/cli-protocol";
import type {
  ForgetCounts,
  ForgetReport,
  MemoryDoc,
  MemoryEvent,
  MemoryLoop,
  PluginForgetReport,
  PluginSDK,
  ScrubStatus,
} from "@homeagent/sdk";
import { type DateFormat, userDate } from "./user-date.js";

export const MEMORY_HELP = [
  "/memory query <keywords>      graph facts about the keywords",
  "/memory docs <query>          archived conversations and documents (read only)",
  "/memory timeline              the context window, oldest first",
  "/memory stats                 counts per layer and index",
  "/memory run <loop>            run distill | archive | merge | review now",
  "/memory forget <query>        show what matches; /memory forget --yes <query> removes it everywhere",
  "                              (--knowledge also removes matching knowledge-base items)",
];

const LOOPS: readonly MemoryLoop[] = ["distill", "archive", "merge", "review"];
/** Characters of one text shown per line: a listing, not a dump. */
const LINE_CHARS = 200;

export async function memoryCommand(sdk: PluginSDK, args: string): Promise<FinalFrame> {
  const [, sub = "", rest = ""] = /^(\S*)\s*(.*)$/s.exec(args.trim()) ?? [];
  switch (sub) {
    case "query":
      return needs(rest, "/memory query <keywords>", () => query(sdk, rest));
    case "docs":
      return needs(rest, "/memory docs <query>", () => docs(sdk, rest, userDate(sdk)));
    case "timeline":
      return response(timeline(await sdk.memory.timeline(), userDate(sdk)));
    case "stats":
      return response(JSON.stringify(await sdk.memory.stats(), null, 2));
    case "run": {
      if (!LOOPS.includes(rest as MemoryLoop)) return usage(`/memory run ${LOOPS.join("|")}`);
      // The summary names its loop already ("distill: …").
      return response((await sdk.memory.runLoop(rest as MemoryLoop)).summary);
    }
    case "forget":
      return forget(sdk, rest);
    default:
      return usage(MEMORY_HELP.join("\n"));
  }
}

async function query(sdk: PluginSDK, keywords: string): Promise<FinalFrame> {
  const { entities, relations } = await sdk.memory.recall(keywords);
  if (entities.length === 0 && relations.length === 0) return response(`no graph facts about "${keywords}"`);
  const lines = [
    `entities (${entities.length}): ${entities.map((e) => `${e.name}${e.type !== "Concept" ? ` (${e.type})` : ""}`).join(", ")}`,
    ...relations.map(
      (r) => `- ${r.subject} —${r.relation}→ ${r.object}${r.status !== "active" ? ` [${r.status}]` : ""}`,
    ),
  ];
  return response(lines.join("\n"));
}

async function docs(sdk: PluginSDK, q: string, date: DateFormat): Promise<FinalFrame> {
  const found = await sdk.docMemory.query(q, 5);
  if (found.length === 0) return response(`no documents match "${q}"`);
  return response(found.map((d) => docLine(d, date)).join("\n\n"));
}

function docLine(d: MemoryDoc, date: DateFormat): string {
  const when = date(d.tsStart).slice(0, 10);
  return `${d.id} (${d.source}, ${when}, score ${d.score?.toFixed(2) ?? "-"}): ${d.summary}\n${clip(d.content, 600)}`;
}

function timeline(events: MemoryEvent[], date: DateFormat): string {
  if (events.length === 0) return "the context window is empty";
  return events
    .map((e) => {
      const when = date(e.ts);
      const reply = e.response ? ` → ${clip(e.response, LINE_CHARS)}` : "";
      return `#${e.id} [${when}] ${e.kind} ${e.source}: ${clip(e.input, LINE_CHARS)}${reply}`;
    })
    .join("\n");
}

async function forget(sdk: PluginSDK, args: string): Promise<FinalFrame> {
  const { confirm, knowledge, query: q } = parseForgetArgs(args);
  if (!q) return usage("/memory forget <query>, then /memory forget --yes [--knowledge] <query>");
  const report = await sdk.memory.forget(q, { confirm, knowledge });
  const plugins = report.plugins.filter((p) => p.error || Object.values(p.counts).some((n) => n > 0)).map(pluginLine);
  if (!confirm) {
    const found = total(report.matched) + pluginTotal(report) + report.knowledge.matched;
    if (found === 0 && report.plugins.every((p) => !p.error)) {
      return response(`nothing in memory matches "${q}"`);
    }
    return response(
      [
        `matches for "${q}": ${counts(report.matched)}`,
        ...plugins,
        ...knowledgeLines(report.knowledge.matched, report.knowledge.paths, "matches"),
        ...report.samples.map((s) => `- ${clip(s, LINE_CHARS)}`),
        `to remove all of it from every layer, send: /memory forget --yes ${knowledge ? "--knowledge " : ""}${q}`,
      ].join("\n"),
    );
  }
  const kb = report.knowledge;
  return response(
    [
      `forgot "${q}": removed ${counts(report.removed)}`,
      ...plugins,
      ...(kb.removed > 0
        ? [`knowledge base: removed ${kb.removed} item(s)`]
        : knowledgeLines(kb.matched, kb.paths, "left alone")),
      scrubLine(report.scrub),
    ].join("\n"),
  );
}

function pluginLine(p: PluginForgetReport): string {
  if (p.error) return `plugin ${p.plugin}: could not forget its own data (${p.error}); it may still hold the text`;
  const listed = Object.entries(p.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  return `plugin ${p.plugin}: ${listed}${p.samples.length > 0 ? ` (${p.samples.map((s) => clip(s, 60)).join(", ")})` : ""}`;
}

function knowledgeLines(matched: number, paths: string[], how: "matches" | "left alone"): string[] {
  if (matched === 0) return [];
  const listed = `${paths.join(", ")}${matched > paths.length ? ", …" : ""}`;
  return [
    `knowledge base: ${matched} item(s) ${how === "matches" ? "match" : "match and were left alone"} (${listed}); your own notes are removed only with --knowledge`,
  ];
}

function scrubLine(scrub: ScrubStatus | undefined): string {
  if (scrub?.state === "failed") return `the scrub of the database files failed: ${scrub.error}`;
  return "the database files are scrubbed in the background (VACUUM); /memory stats shows when it is done";
}

/** The layers that hold something; "nothing" when none does. */
function counts(c: ForgetCounts): string {
  const held = Object.entries(c).filter(([, v]) => v > 0);
  return held.length > 0 ? held.map(([k, v]) => `${k} ${v}`).join(", ") : "nothing";
}

function total(c: ForgetCounts): number {
  return Object.values(c).reduce((a, b) => a + b, 0);
}

function pluginTotal(report: ForgetReport): number {
  return report.plugins.reduce((n, p) => n + Object.values(p.counts).reduce((a, b) => a + b, 0), 0);
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function needs(arg: string, form: string, run: () => Promise<FinalFrame>): Promise<FinalFrame> | FinalFrame {
  return arg ? run() : usage(form);
}

function usage(text: string): FinalFrame {
  return { type: "error", error: `usage: ${text}` };
}

function response(content: string): FinalFrame {
  return { type: "response", content };
}
