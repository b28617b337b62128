/**
 * The health checks on Overview: the overall verdict and counts, then each failure and warning with what to
 * do. Polled rarely, and taking a memory check of the last 10 minutes: a new one reads memory.db through.
 * Shown only while the healthcheck plugin runs (the Overview knows from /api/v1/runtime), so a daemon without
 * it is not asked for a report it cannot give.
 */
import { fill, useT } from "../i18n";
import type { Health } from "../types";
import { Badge, ErrorLine, Loading } from "./status";
import { useApi } from "./use-api";

const EVERY_MS = 120_000;
const TONE = { ok: "ok", warn: "warn", fail: "bad" } as const;

export function HealthCard() {
  const t = useT();
  const health = useApi<Health>("/api/v1/health?recent=1", EVERY_MS);
  const h = health.data;
  const label = { ok: t.healthOk, warn: t.healthWarn, fail: t.healthFail };
  const problems = h?.checks.filter((c) => c.status !== "ok") ?? [];
  return (
    <section class="card" aria-labelledby="ov-health">
      <h2 id="ov-health">{t.healthChecks}</h2>
      <ErrorLine message={health.error} />
      {!h ? (
        health.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <p data-health={h.status}>
            <Badge tone={TONE[h.status]}>{label[h.status]}</Badge>{" "}
            {problems.length === 0 ? t.healthAllOk : fill(t.healthSummary, h.counts)}
          </p>
          {problems.length > 0 && (
            <ul class="health-list">
              {problems.map((c) => (
                <li key={c.name} data-check={c.name}>
                  <Badge tone={TONE[c.status]}>{label[c.status]}</Badge>{" "}
                  <strong translate={false}>
                    <bdi>{c.name}</bdi>
                  </strong>
                  : <span translate={false}>{c.detail}</span>
                  {c.fix && (
                    <div class="hint" translate={false}>
                      → {c.fix}
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
