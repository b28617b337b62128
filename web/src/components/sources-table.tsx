/**
 * The LLM sources with their state, cooldown and last error: on Overview and on Kernel. On a phone the
 * table is stacked (styles.css, `table.stacked`): each source becomes a block of "label: value" lines, so no
 * column is squeezed a few letters wide and words stay whole. A name is isolated (<bdi>) and may break
 * anywhere, so neither a right-to-left override in it nor its length moves the other columns.
 */
import { clock } from "../format";
import { fill, type Messages, useT } from "../i18n";
import type { LlmSourceStatus } from "../types";
import { ScrollBox } from "./scroll-box";
import { Badge } from "./status";

export function SourcesTable({ sources, detail = false }: { sources: LlmSourceStatus[]; detail?: boolean }) {
  const t = useT();
  if (sources.length === 0) return <p>{t.noSources}</p>;
  return (
    <ScrollBox label={t.llmSources}>
      <table class="stacked">
        <thead>
          <tr>
            <th scope="col">{t.source}</th>
            <th scope="col">{t.model}</th>
            <th scope="col">{t.state}</th>
            {detail && <th scope="col">{t.priority}</th>}
            {detail && <th scope="col">{t.inFlight}</th>}
            <th scope="col">{t.lastError}</th>
          </tr>
        </thead>
        <tbody>
          {sources.map((s) => (
            <tr key={s.name}>
              <th scope="row" class="wrap" translate={false}>
                <bdi>{s.name}</bdi>
              </th>
              <td class="wrap" data-label={t.model} translate={false}>
                {s.model}
              </td>
              <td data-label={t.state}>
                <SourceState source={s} t={t} />
              </td>
              {detail && <td data-label={t.priority}>{s.priority ?? ""}</td>}
              {detail && (
                <td data-label={t.inFlight}>
                  {s.inFlight !== undefined ? `${s.inFlight}/${s.maxConcurrent ?? "?"}` : ""}
                </td>
              )}
              <td class="wrap" data-label={t.lastError} translate={false}>
                {s.lastError ?? ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

function SourceState({ source, t }: { source: LlmSourceStatus; t: Messages }) {
  const state = source.state ?? (source.available ? "ready" : "unavailable");
  if (state === "ready") return <Badge tone="ok">{t.stateReady}</Badge>;
  if (state === "unavailable") return <Badge tone="bad">{t.stateUnavailable}</Badge>;
  const text = source.cooldownUntil
    ? fill(t.coolingUntil, { time: clock(source.cooldownUntil, t.lang) })
    : t.stateCooling;
  return <Badge tone="warn">{text}</Badge>;
}
