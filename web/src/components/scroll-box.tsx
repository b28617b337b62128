/**
 * A box that scrolls sideways when its table is wider than a phone's screen (the page itself never does).
 * It is focusable and named, so a keyboard user can scroll it too.
 */
import type { ComponentChildren } from "preact";
import { fill, useT } from "../i18n";

export function ScrollBox({ label, children }: { label: string; children: ComponentChildren }) {
  const t = useT();
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
    <section class="scroll-x" aria-label={fill(t.tableOf, { label })} tabIndex={0}>
      {children}
    </section>
  );
}
