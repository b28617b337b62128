/**
 * Long lists on the Memory tab (facts, the context timeline) render a page of rows at a time: a thousand
 * rows with their buttons at once would block the page for a noticeable moment, and nobody reads them all.
 * The line says how many are shown out of how many; the button adds the next page.
 */
import { useState } from "preact/hooks";
import { fill, useT } from "../i18n";

/** Rows per page. */
const PAGE_ROWS = 100;

/** How many rows to show now, and a function that shows one page more. */
export function useShown(step = PAGE_ROWS): [number, () => void] {
  const [shown, setShown] = useState(step);
  return [shown, () => setShown((n) => n + step)];
}

export function ShowMore({ shown, total, onMore }: { shown: number; total: number; onMore: () => void }) {
  const t = useT();
  if (shown >= total) return null;
  return (
    <div class="row">
      <small class="hint">{fill(t.listShown, { shown, total })}</small>
      <button type="button" onClick={onMore}>
        {t.showMore}
      </button>
    </div>
  );
}
