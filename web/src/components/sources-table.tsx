/** The LLM sources with their state, cooldown and last error: on Overview and on Kernel. */
import { clock } from "../format";
import { type Messages, useT } from "../i18n";
import type { LlmSourceStatus } from "../types";
import { ScrollBox } from "./scroll-box";
import { Badge } from "./status";

export function SourcesTable({ sources, detail = false }: { sources: LlmSourceStatus[]; detail?: boolean }) {
  const t = useT();
  if (sources.length === 0) return <p>{t.noSources}</p>;
  return (
    <ScrollBox label={t.llmSources}>
      <table>
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
              <th scope="row">{s.name}</th>
              <td class="wrap">{s.model}</td>
              <td>
                <SourceState source={s} t={t} />
              </td>
              {detail && <td>{s.priority ?? ""}</td>}
              {detail && <td>{s.inFlight !== undefined ? `${s.inFlight}/${s.maxConcurrent ?? "?"}` : ""}</td>}
              <td class="wrap">{s.lastError ?? ""}</td>
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
  const until = source.cooldownUntil ? ` — ${t.cooldownUntil} ${clock(source.cooldownUntil)}` : "";
  return <Badge tone="warn">{`${t.stateCooling}${until}`}</Badge>;
}
