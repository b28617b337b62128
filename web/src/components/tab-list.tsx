/**
 * The WAI-ARIA tabs pattern: a tablist of buttons, only the selected one in the Tab order, arrow keys
 * (and Home/End) move between them and select, each tab controls its panel. Vertical (the dashboard's side
 * bar and phone menu) or horizontal (a tab strip inside a tab), with the arrow keys of that direction.
 */
import { useRef } from "preact/hooks";

export interface TabDef<K extends string> {
  key: K;
  label: string;
  /** A count shown beside the label (unread messages), with its words for screen readers. */
  badge?: { count: number; label: string };
}

interface Props<K extends string> {
  tabs: Array<TabDef<K>>;
  selected: K;
  label: string;
  onSelect: (key: K) => void;
  /** A tab chosen with a click, Enter or Space (not by moving with the arrow keys). */
  onActivate?: (key: K) => void;
  vertical?: boolean;
}

export function TabList<K extends string>({ tabs, selected, label, onSelect, onActivate, vertical = false }: Props<K>) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const move = (index: number) => {
    const next = (index + tabs.length) % tabs.length;
    onSelect(tabs[next].key);
    refs.current[next]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const [next, previous] = vertical ? ["ArrowDown", "ArrowUp"] : ["ArrowRight", "ArrowLeft"];
    const step: Record<string, number> = { [next]: index + 1, [previous]: index - 1, Home: 0, End: tabs.length - 1 };
    if (!(event.key in step)) return;
    event.preventDefault();
    move(step[event.key]);
  };
  return (
    <div
      role="tablist"
      aria-label={label}
      aria-orientation={vertical ? "vertical" : "horizontal"}
      class={vertical ? "tablist tablist-vertical" : "tablist"}
    >
      {tabs.map((tab, index) => (
        <button
          key={tab.key}
          ref={(el) => {
            refs.current[index] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${tab.key}`}
          aria-selected={tab.key === selected}
          aria-controls={`panel-${tab.key}`}
          tabIndex={tab.key === selected ? 0 : -1}
          onClick={() => {
            onSelect(tab.key);
            onActivate?.(tab.key);
          }}
          onKeyDown={(event) => onKeyDown(event, index)}
        >
          {tab.label}
          {tab.badge && tab.badge.count > 0 && (
            <>
              <span class="badge badge-warn tab-badge" aria-hidden="true">
                {tab.badge.count}
              </span>
              <span class="visually-hidden"> ({tab.badge.label})</span>
            </>
          )}
        </button>
      ))}
    </div>
  );
}
