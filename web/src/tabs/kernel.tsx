/**
 * Kernel: what the daemon is doing inside — the LLM providers with their cooldowns and concurrency, the
 * plugins, the input queue, the event bus, the SSE clients and the events dropped for slow ones, and
 * settings whose stored value was refused.
 */
import { Facts } from "../components/facts";
import { MemorySizes } from "../components/memory-sizes";
import { ScrollBox } from "../components/scroll-box";
import { SourcesTable } from "../components/sources-table";
import { Badge, ErrorLine, healthTone, Loading } from "../components/status";
import { useApi } from "../components/use-api";
import { duration } from "../format";
import { useT } from "../i18n";
import type { Kernel } from "../types";

export function KernelTab() {
  const t = useT();
  const kernel = useApi<Kernel>("/api/v1/kernel", 5000);
  const k = kernel.data;
  return (
    <div class="stack">
      <div class="row">
        <h1>{t.tabKernel}</h1>
        <button type="button" onClick={() => void kernel.reload()}>
          {t.refresh}
        </button>
      </div>
      <ErrorLine message={kernel.error} />
      {!k ? (
        <Loading />
      ) : (
        <>
          <section class="card" aria-labelledby="k-queue">
            <h2 id="k-queue">{t.queue}</h2>
            <Facts
              rows={[
                [t.version, k.status.version, { data: true }],
                [t.uptime, duration(k.status.uptimeS, t.lang)],
                [t.state, k.status.busy ? t.busy : t.idle],
                [t.queued, String(k.status.queued)],
                [t.processed, String(k.status.processed)],
                [t.eventsPublished, String(k.status.events.published)],
                [t.subscribers, String(k.status.events.subscribers)],
                [t.embedding, k.status.embedding.active, { data: true }],
              ]}
            />
          </section>
          <section class="card" aria-labelledby="k-providers">
            <h2 id="k-providers">{t.providers}</h2>
            <SourcesTable sources={k.llm} detail />
          </section>
          <section class="card" aria-labelledby="k-sse">
            <h2 id="k-sse">{t.sseClients}</h2>
            <Facts
              rows={[
                [t.sseClients, `${k.sse.clients} / ${k.sse.maxClients}`],
                [t.sseSent, String(k.sse.sent)],
                [t.sseDropped, String(k.sse.dropped)],
                [t.sseReplayed, String(k.sse.replayed)],
              ]}
            />
          </section>
          <section class="card" aria-labelledby="k-plugins">
            <h2 id="k-plugins">{t.plugins}</h2>
            <ScrollBox label={t.plugins}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t.name}</th>
                    <th scope="col">{t.state}</th>
                    <th scope="col">{t.health}</th>
                    <th scope="col">{t.lastError}</th>
                  </tr>
                </thead>
                <tbody>
                  {k.plugins.map((p) => (
                    <tr key={p.name}>
                      <th scope="row" translate={false}>
                        {p.name}
                      </th>
                      <td>{t[`state_${p.state}`]}</td>
                      <td>
                        <Badge tone={healthTone(p.health)}>{t[`health_${p.health}`]}</Badge>
                      </td>
                      <td class="wrap" translate={false}>
                        {[p.healthReason, p.lastError].filter(Boolean).join(" · ")}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          </section>
          <section class="card" aria-labelledby="k-memory">
            <h2 id="k-memory">{t.memorySizes}</h2>
            <MemorySizes memory={k.memory} />
          </section>
          {k.status.configProblems.length > 0 && (
            <section class="card" aria-labelledby="k-config">
              <h2 id="k-config">{t.configProblems}</h2>
              <ul>
                {k.status.configProblems.map((p) => (
                  <li key={p.key}>
                    <code translate={false}>{p.key}</code>
                    {t.colon}
                    <span translate={false}>{p.message}</span>
                  </li>
                ))}
              </ul>
            </section>
          )}
        </>
      )}
    </div>
  );
}
