/**
 * Overview: is the daemon up and for how long, is it busy, the LLM sources and their state, today's turns
 * and tokens per source, memory's sizes, the process's own memory, and what the health checks found. Polls the small /api/v1/runtime
 * often and /api/v1/kernel (usage, memory sizes) less often, and reloads the latter shortly after a turn
 * ends (at most once a second), so a turn shows without waiting for the poll; the uptime counts on between
 * polls.
 */
import { useEffect, useState } from "preact/hooks";
import { HealthCard } from "../components/health-card";
import { MemorySizes } from "../components/memory-sizes";
import { SourcesTable } from "../components/sources-table";
import { ErrorLine, Loading } from "../components/status";
import { UsageChart } from "../components/usage-chart";
import { type Loaded, useApi } from "../components/use-api";
import { events } from "../events";
import { bytes, duration } from "../format";
import { useT } from "../i18n";
import type { Kernel, Runtime } from "../types";

export function OverviewTab() {
  const t = useT();
  const runtime = useApi<Runtime>("/api/v1/runtime", 5000);
  const kernel = useApi<Kernel>("/api/v1/kernel", 15_000);
  useReloadAfterTurns(kernel);
  const r = runtime.data;
  return (
    <div class="stack">
      <h1>{t.tabOverview}</h1>
      <ErrorLine message={runtime.error} />
      {!r ? (
        <Loading />
      ) : (
        <section class="card" aria-labelledby="ov-status">
          <h2 id="ov-status" class="visually-hidden">
            {t.state}
          </h2>
          <dl class="facts">
            <div>
              <dt id="uptime-label">{t.uptime}</dt>
              <dd>
                <Uptime seconds={r.uptimeS} />
              </dd>
            </div>
            <div>
              <dt>{t.state}</dt>
              <dd>{r.busy ? t.busy : t.idle}</dd>
            </div>
            <div>
              <dt>{t.queued}</dt>
              <dd>{r.queued}</dd>
            </div>
            <div>
              <dt>{t.processed}</dt>
              <dd>{r.processed}</dd>
            </div>
            <div>
              <dt>{t.rss}</dt>
              <dd translate={false}>{bytes(r.process.rssBytes)}</dd>
            </div>
          </dl>
        </section>
      )}
      <section class="card" aria-labelledby="ov-sources">
        <h2 id="ov-sources">{t.llmSources}</h2>
        {kernel.data ? <SourcesTable sources={kernel.data.llm} /> : r ? <SourcesTable sources={r.llm} /> : <Loading />}
      </section>
      <section class="card" aria-labelledby="ov-usage">
        <h2 id="ov-usage">{t.usageToday}</h2>
        {kernel.data ? <UsageChart usage={kernel.data.status.usage} /> : <Loading />}
      </section>
      <section class="card" aria-labelledby="ov-memory">
        <h2 id="ov-memory">{t.memorySizes}</h2>
        <ErrorLine message={kernel.error} />
        {kernel.data ? <MemorySizes memory={kernel.data.memory} /> : <Loading />}
      </section>
      {r?.plugins.some((p) => p.name === "healthcheck" && p.state === "running") && <HealthCard />}
    </div>
  );
}

/** Counts on every second from the last polled value, so the figure is live without a request a second. */
function Uptime({ seconds }: { seconds: number }) {
  const t = useT();
  const [base, setBase] = useState({ seconds, at: Date.now() });
  const [now, setNow] = useState(Date.now());
  useEffect(() => setBase({ seconds, at: Date.now() }), [seconds]);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const value = base.seconds + Math.max(0, (now - base.at) / 1000);
  return (
    <span role="timer" aria-labelledby="uptime-label" data-seconds={Math.floor(value)}>
      {duration(value, t.lang)}
    </span>
  );
}

/** How long after a turn ends the kernel answer is reloaded; turns ending meanwhile share the reload. */
const AFTER_TURN_MS = 1000;

function useReloadAfterTurns(loaded: Loaded<unknown>): void {
  const { reload } = loaded;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = events.on("agent_output", () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        void reload();
      }, AFTER_TURN_MS);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [reload]);
}
