/** Memory's sizes as a definition list, or why memory has none (not running). */
import { useT } from "../i18n";
import type { MemoryStats } from "../types";
import { Facts } from "./facts";

export function MemorySizes({ memory }: { memory: MemoryStats | { unavailable: string } }) {
  const t = useT();
  if ("unavailable" in memory) {
    return (
      <p>
        {t.memoryUnavailable}
        {t.colon}
        <span translate={false}>{memory.unavailable}</span>
      </p>
    );
  }
  const rows: Array<[string, string]> = [
    [t.contextEvents, `${memory.context.events} / ${memory.context.maxEvents}`],
    [t.documents, String(memory.documents)],
    [t.entities, String(memory.entities)],
    [t.relations, String(memory.relations)],
    [t.sentences, String(memory.sentences)],
  ];
  return <Facts rows={rows} />;
}
