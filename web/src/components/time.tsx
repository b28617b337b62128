/**
 * A date as the UI shows it: in its language and the agent's zone (format.ts), inside a <time> with the
 * exact instant for machines, and marked as data (translate="no"), not as text of the UI.
 */
import { clock, dateTime } from "../format";
import { useT } from "../i18n";

export function Time({ ms, timeOnly = false }: { ms: number; timeOnly?: boolean }) {
  const t = useT();
  return (
    <time dateTime={new Date(ms).toISOString()} translate={false}>
      {timeOnly ? clock(ms, t.lang) : dateTime(ms, t.lang)}
    </time>
  );
}
