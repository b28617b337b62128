/**
 * Memory: look inside and correct it. Search every layer; preview what would be injected for a question,
 * with tokens per section; forget (a preview of what matches first, then a second, explicit confirmation);
 * the facts of the graph (most mentioned entities and their relations), each one editable and deletable
 * after a confirmation; the documents; the context window's timeline. Documents and the timeline are the
 * record of what was said and stay read-only (as in the original); Forget removes words from them. Long
 * lists show a page of rows at a time and say how much is not drawn.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, get } from "../api";
import { type Fact, FactList } from "../components/fact-list";
import { GraphView } from "../components/graph-view";
import { QueryForm } from "../components/query-form";
import { ShowMore, useShown } from "../components/show-more";
import { ErrorLine, Loading } from "../components/status";
import { Time } from "../components/time";
import { useApi } from "../components/use-api";
import { errorText } from "../error-text";
import { fill, useT } from "../i18n";
import type { ForgetReport, MemoryStats, ScrubStatus } from "../types";

interface Item {
  id: string;
  kind: string;
  text: string;
  ts: number;
  score?: number;
}
interface Preview {
  query: string;
  budget: number;
  sections: Array<{ name: string; tokens: number; budget: number; text: string }>;
}
interface Graph {
  nodes: Array<{ name: string; type: string; mentions: number }>;
  edges: Fact[];
  total: number;
}
interface Doc {
  id: string;
  summary: string;
  createdAt: number;
}
interface TimelineEvent {
  id: number;
  ts: number;
  kind: string;
  input: string;
  response: string;
}

/** Entities the graph view draws: the most mentioned; the line under it says how many there are in all. */
const GRAPH_NODES = 100;
/** How often, and how many times, the forget's scrub is asked about until it ends. */
const SCRUB_POLL_MS = 1000;
const SCRUB_POLLS = 120;

export function MemoryTab() {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  const [hits, setHits] = useState<Item[] | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [picked, setPicked] = useState<string | null>(null);
  const pick = useCallback((name: string) => setPicked(name), []);
  const graph = useApi<Graph>(`/api/v1/memory/graph?limit=${GRAPH_NODES}`);
  const docs = useApi<{ items: Doc[]; total: number }>("/api/v1/memory/docs?limit=50");
  const timeline = useApi<{ events: TimelineEvent[] }>("/api/v1/memory/timeline");
  const reloadAll = async () => {
    setHits(null);
    setPreview(null);
    await Promise.all([graph.reload(), docs.reload(), timeline.reload()]);
  };
  const run = async <T,>(fn: () => Promise<T>, then: (value: T) => void) => {
    setError(null);
    try {
      then(await fn());
    } catch (err) {
      setError(errorText(t, err));
    }
  };
  const q = encodeURIComponent;

  return (
    <div class="stack">
      <h1>{t.tabMemory}</h1>
      <ErrorLine message={error} />
      <section class="card stack" aria-labelledby="mem-search">
        <h2 id="mem-search">{t.memSearch}</h2>
        <QueryForm
          id="mem-search-q"
          label={t.memSearchLabel}
          button={t.search}
          onSubmit={(v) =>
            run(
              () => get<{ items: Item[] }>(`/api/v1/memory/search?q=${q(v)}&limit=20`),
              (r) => setHits(r.items),
            )
          }
        />
        {hits && (
          <ul class="results" aria-label={t.results}>
            {hits.length === 0 && <li>{t.noResults}</li>}
            {hits.map((h) => (
              <li key={h.id}>
                <span class="badge badge-muted" translate={false}>
                  {h.kind}
                </span>{" "}
                <span class="plain" translate={false}>
                  {h.text}
                </span>{" "}
                <small class="hint">
                  <Time ms={h.ts} />
                  {h.score !== undefined ? ` · ${h.score.toFixed(3)}` : ""}
                </small>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section class="card stack" aria-labelledby="mem-preview">
        <h2 id="mem-preview">{t.memPreview}</h2>
        <QueryForm
          id="mem-preview-q"
          label={t.question}
          button={t.preview}
          onSubmit={(v) => run(() => get<Preview>(`/api/v1/memory/context?q=${q(v)}`), setPreview)}
        />
        {preview && (
          <div class="stack">
            {preview.sections.map((s) => (
              <details key={s.name}>
                <summary>{fill(t.sectionTokens, { name: s.name, tokens: s.tokens, budget: s.budget })}</summary>
                <pre class="plain" translate={false}>
                  {s.text}
                </pre>
              </details>
            ))}
          </div>
        )}
      </section>
      <ForgetSection onForgotten={reloadAll} />
      <section class="card stack" aria-labelledby="mem-graph">
        <h2 id="mem-graph">{t.memFacts}</h2>
        <ErrorLine message={graph.error} />
        {!graph.data ? (
          <Loading />
        ) : (
          <>
            <p class="hint">
              {graph.data.nodes.length < graph.data.total
                ? fill(t.graphCut, { shown: graph.data.nodes.length, total: graph.data.total })
                : fill(t.labelValue, { label: t.entities, value: graph.data.total })}
            </p>
            {graph.data.nodes.length > 0 && (
              <GraphView
                data={graph.data}
                label={fill(t.graphSummary, {
                  title: t.memGraph,
                  nodes: graph.data.nodes.length,
                  edges: graph.data.edges.length,
                })}
                onPick={pick}
              />
            )}
            {picked && (
              <div class="row">
                <span>{fill(t.labelValue, { label: t.picked, value: picked })}</span>
                <button type="button" onClick={() => setPicked(null)}>
                  {t.showAll}
                </button>
              </div>
            )}
            <FactList
              key={picked ?? ""}
              facts={graph.data.edges.filter((e) => !picked || e.subject === picked || e.object === picked)}
              onChanged={graph.reload}
            />
          </>
        )}
      </section>
      <section class="card stack" aria-labelledby="mem-docs">
        <h2 id="mem-docs">{t.documents}</h2>
        <ErrorLine message={docs.error} />
        {docs.data && (
          <>
            <ul class="results" aria-label={t.documents}>
              {docs.data.items.length === 0 && <li>{t.noResults}</li>}
              {docs.data.items.map((d) => (
                <li key={d.id}>
                  <span class="plain" translate={false}>
                    {d.summary}
                  </span>{" "}
                  <small class="hint">
                    <Time ms={d.createdAt} />
                  </small>
                </li>
              ))}
            </ul>
            {docs.data.items.length < docs.data.total && (
              <small class="hint">{fill(t.listShown, { shown: docs.data.items.length, total: docs.data.total })}</small>
            )}
          </>
        )}
      </section>
      <section class="card stack" aria-labelledby="mem-timeline">
        <h2 id="mem-timeline">{t.memTimeline}</h2>
        <ErrorLine message={timeline.error} />
        {timeline.data && <Timeline events={timeline.data.events} />}
      </section>
    </div>
  );
}

/** The newest events of the context window, oldest first; "show more" reaches further back. */
function Timeline({ events }: { events: TimelineEvent[] }) {
  const t = useT();
  const [shown, more] = useShown();
  return (
    <>
      <ShowMore shown={shown} total={events.length} onMore={more} />
      <ol class="results" aria-label={t.memTimeline}>
        {events.length === 0 && <li>{t.noResults}</li>}
        {events.slice(-shown).map((e) => (
          <li key={e.id}>
            <small class="hint">
              <Time ms={e.ts} />
            </small>{" "}
            <span class="plain" translate={false}>
              {e.input}
            </span>
            {e.response && (
              <span class="plain" translate={false}>
                {" "}
                → {e.response}
              </span>
            )}
          </li>
        ))}
      </ol>
    </>
  );
}

/**
 * Forget in two steps: the preview shows what matches (in memory, in what plugins keep, in the knowledge
 * base); only the second button removes it, and the knowledge base only when its box is ticked. After the
 * removal the scrub of the database files runs in the background; its state is polled until it ends.
 */
function ForgetSection({ onForgotten }: { onForgotten: () => Promise<void> }) {
  const t = useT();
  const [report, setReport] = useState<ForgetReport | null>(null);
  const [knowledge, setKnowledge] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const scrub = useScrub(report?.scrub);
  const forget = async (query: string, confirm: boolean) => {
    setError(null);
    try {
      setReport(
        await api<ForgetReport>("DELETE", "/api/v1/memory", { query, confirm, knowledge: confirm && knowledge }),
      );
      if (!confirm) setKnowledge(false);
      if (confirm) await onForgotten();
    } catch (err) {
      setError(errorText(t, err));
    }
  };
  const found = report ? total(report.matched) + pluginTotal(report) + report.knowledge.matched : 0;
  return (
    <section class="card stack" aria-labelledby="mem-forget">
      <h2 id="mem-forget">{t.memForget}</h2>
      <QueryForm id="mem-forget-q" label={t.forgetWhat} button={t.forgetPreview} onSubmit={(v) => forget(v, false)} />
      <ErrorLine message={error} />
      {report && !report.confirmed && (
        <div class="stack">
          <p>{fill(t.labelValue, { label: t.forgetMatches, value: total(report.matched) })}</p>
          <ul>
            {report.samples.map((s) => (
              <li key={s} class="plain" translate={false}>
                {s}
              </li>
            ))}
          </ul>
          <PluginLines report={report} />
          {report.knowledge.matched > 0 && (
            <div class="stack">
              <p>{fill(t.labelValue, { label: t.forgetKnowledge, value: report.knowledge.matched })}</p>
              <ul>
                {report.knowledge.paths.map((p) => (
                  <li key={p} class="plain" translate={false}>
                    {p}
                  </li>
                ))}
              </ul>
              <label class="row">
                <input
                  type="checkbox"
                  checked={knowledge}
                  onChange={(e) => setKnowledge((e.target as HTMLInputElement).checked)}
                />
                {t.forgetKnowledgeToo}
              </label>
            </div>
          )}
          {found > 0 && (
            <div class="row">
              <button type="button" class="danger" onClick={() => forget(report.query, true)}>
                {fill(t.labelValue, { label: t.forgetConfirm, value: report.query })}
              </button>
              <button type="button" onClick={() => setReport(null)}>
                {t.cancel}
              </button>
            </div>
          )}
        </div>
      )}
      {report?.confirmed && (
        <div class="stack" role="status">
          <p>{fill(t.labelValue, { label: t.forgotten, value: total(report.removed) + pluginTotal(report) })}</p>
          <PluginLines report={report} />
          {report.knowledge.removed > 0 && (
            <p>{fill(t.labelValue, { label: t.forgetKnowledgeRemoved, value: report.knowledge.removed })}</p>
          )}
          {scrub && <ScrubLine scrub={scrub} />}
        </div>
      )}
    </section>
  );
}

function PluginLines({ report }: { report: ForgetReport }) {
  const t = useT();
  const shown = report.plugins.filter((p) => p.error || Object.values(p.counts).some((n) => n > 0));
  return (
    <>
      {shown.map((p) => (
        <p key={p.plugin}>
          {p.error
            ? fill(t.forgetPluginError, { name: p.plugin, error: p.error })
            : fill(t.labelValue, {
                label: fill(t.forgetPlugin, { name: p.plugin }),
                value:
                  Object.entries(p.counts)
                    .filter(([, n]) => n > 0)
                    .map(([k, n]) => `${k} ${n}`)
                    .join(", ") + (p.samples.length > 0 ? ` (${p.samples.join(", ")})` : ""),
              })}
        </p>
      ))}
    </>
  );
}

function ScrubLine({ scrub }: { scrub: ScrubStatus }) {
  const t = useT();
  if (scrub.state === "failed") return <p>{fill(t.scrubFailed, { error: scrub.error ?? "" })}</p>;
  return <p>{scrub.state === "done" ? t.scrubDone : t.scrubRunning}</p>;
}

/** The scrub's state, from the forget's answer and then from the kernel status until it has ended. */
function useScrub(initial: ScrubStatus | undefined): ScrubStatus | undefined {
  const [scrub, setScrub] = useState(initial);
  useEffect(() => {
    setScrub(initial);
    if (!initial || initial.state === "done" || initial.state === "failed") return;
    let stopped = false;
    const poll = async () => {
      for (let i = 0; i < SCRUB_POLLS && !stopped; i++) {
        await new Promise((r) => setTimeout(r, SCRUB_POLL_MS));
        const k = await get<{ memory: MemoryStats | { unavailable: string } }>("/api/v1/kernel").catch(() => null);
        if (stopped || !k || "unavailable" in k.memory) continue;
        setScrub(k.memory.scrub);
        if (k.memory.scrub.state === "done" || k.memory.scrub.state === "failed") return;
      }
    };
    void poll();
    return () => {
      stopped = true;
    };
  }, [initial]);
  return scrub;
}

const total = (counts: object) => Object.values(counts).reduce((a: number, b) => a + (b as number), 0);
const pluginTotal = (report: ForgetReport) => report.plugins.reduce((n, p) => n + total(p.counts), 0);
