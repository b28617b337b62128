/**
 * `/memory …` over the cli socket: look into each layer (graph, documents, context), run a heartbeat loop
 * now, and forget. Forgetting is two steps on purpose: `/memory forget <query>` only shows what matches;
 * `/memory forget --yes <query>` removes it from every layer, index and the raw log.
 */
import type { FinalFrame } from "@homeagent/cli-protocol";
import type { ForgetCounts, MemoryDoc, MemoryEvent, MemoryLoop, PluginSDK } from "@homeagent/sdk";

export const MEMORY_HELP = [
  "/memory query <keywords>      graph facts about the keywords",
  "/memory docs <query>          archived conversations and documents (read only)",
  "/memory timeline              the context window, oldest first",
  "/memory stats                 counts per layer and index",
  "/memory run <loop>            run distill | archive | merge | review now",
  "/memory forget <query>        show what matches; /memory forget --yes <query> removes it everywhere",
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
      return needs(rest, "/memory docs <query>", () => docs(sdk, rest, dateIn(userZone(sdk))));
    case "timeline":
      return response(timeline(await sdk.memory.timeline(), dateIn(userZone(sdk))));
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
  const confirmed = /^--yes(\s|$)/.test(args);
  const q = args.replace(/^--yes(\s+|$)/, "").trim();
  if (!q) return usage("/memory forget <query>, then /memory forget --yes <query>");
  const report = await sdk.memory.forget(q, { confirm: confirmed });
  if (!confirmed) {
    if (total(report.matched) === 0) return response(`nothing in memory matches "${q}"`);
    return response(
      [
        `matches for "${q}": ${counts(report.matched)}`,
        ...report.samples.map((s) => `- ${clip(s, LINE_CHARS)}`),
        `to remove all of it from every layer, send: /memory forget --yes ${q}`,
      ].join("\n"),
    );
  }
  return response(`forgot "${q}": removed ${counts(report.removed)}`);
}

type DateFormat = (ms: number) => string;

/** The user's zone (`core.agent.timezone`), as the prompt uses it; the system's when unset or unknown. */
function userZone(sdk: PluginSDK): string | undefined {
  const zone = sdk.config.list("core.agent.timezone").find((e) => e.key === "core.agent.timezone")?.value;
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
}

/** `YYYY-MM-DD HH:MM:SS` in `zone` (sv-SE writes dates in that order). */
function dateIn(zone: string | undefined): DateFormat {
  const f = new Intl.DateTimeFormat("sv-SE", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });
  return (ms) => f.format(ms);
}

function counts(c: ForgetCounts): string {
  return Object.entries(c)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}

function total(c: ForgetCounts): number {
  return Object.values(c).reduce((a, b) => a + b, 0);
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
