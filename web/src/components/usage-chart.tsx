/**
 * Today's turns and tokens per LLM source (Overview): two small stacked bar charts by hour, drawn with
 * uPlot, and tables that hold every figure, for readers who cannot see a canvas. uPlot is imported only
 * when there is something to draw, so the Overview's first view stays small and the uptime shows without
 * waiting for it. Its stylesheet is bundled with the app's (the CSP refuses inline <style>), and it sets
 * element styles only through the CSSOM, which the CSP allows. Colours come from the theme's custom
 * properties and are read again when the theme changes; each chart follows its box's width.
 *
 * Up to 16 sources and "(other)" share a chart: 8 hues solid, then 8 darker (light theme) or deeper (dark
 * theme) hues striped, and "(other)" grey, so no two look alike; the bars stack in the table's order and a
 * hint says so. Names are sorted naturally (src2 before src10) in the page's language and isolated (<bdi>),
 * so a right-to-left override inside one cannot reorder the text around it.
 */
import "uplot/dist/uPlot.min.css";
import { useEffect, useRef, useState } from "preact/hooks";
import type uPlot from "uplot";
import { calendarDay } from "../format";
import { fill, type Messages, useT } from "../i18n";
import { themeColors } from "../theme";
import type { LlmSourceUsage, LlmUsageToday } from "../types";
import { ScrollBox } from "./scroll-box";

const HEIGHT = 160;
/** --chart-1 … --chart-16 in styles.css (the usage meter keeps at most 16 names, then "(other)"). */
const PALETTE = 16;
/** From this colour on a slice is striped (and its swatch too), to tell it from the solid hue it resembles. */
const STRIPED_FROM = 9;
/** The usage meter's bucket for the sources past its bound (src/llm/usage-meter.ts). */
const OTHER_SOURCES = "(other)";
/** Y-axis steps: whole numbers only (1, 2, 5, 10, 20 … 5·10⁹), turns and tokens never come in halves. */
const WHOLE_STEPS = Array.from({ length: 30 }, (_, i) => [1, 2, 5][i % 3] * 10 ** Math.floor(i / 3));

type Metric = (h: LlmSourceUsage["byHour"][number]) => number;
const turnsOf: Metric = (h) => h.turns;
const tokensOf: Metric = (h) => h.promptTokens + h.completionTokens;

/** `usage.sources` come in the server's order (natural, "(other)" last): the bars stack in it. */
export function UsageChart({ usage }: { usage: LlmUsageToday }) {
  const t = useT();
  if (usage.sources.length === 0) return <p>{t.noTurnsToday}</p>;
  return (
    <div class="stack">
      <p class="hint">{fill(t.usageDay, { day: calendarDay(usage.day, t.lang), zone: usage.timeZone })}</p>
      {usage.sources.length > 1 && <p class="hint">{t.usageOrder}</p>}
      <div class="usage-charts">
        <HourChart title={t.turnsPerHour} usage={usage} metric={turnsOf} t={t} />
        <HourChart title={t.tokensPerHour} usage={usage} metric={tokensOf} t={t} />
      </div>
      <UsageTable usage={usage} t={t} />
    </div>
  );
}

function HourChart({ title, usage, metric, t }: { title: string; usage: LlmUsageToday; metric: Metric; t: Messages }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  const values = usage.sources.map((s) => perHour(s, usage.hour, metric));
  const colours = usage.sources.map((s, i) => colourOf(s.name, i));
  const key = JSON.stringify(values);
  // Drawn again when the figures change (`key`), not on every render of the Overview.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let chart: uPlot | undefined;
    let stopped = false;
    const watchers: Array<{ disconnect(): void }> = [];
    import("uplot")
      .then(({ default: UPlot }) => {
        if (stopped) return;
        const draw = () => {
          chart?.destroy();
          chart = new UPlot(options(UPlot, el.clientWidth, values, colours), data(values), el);
        };
        draw();
        const themes = new MutationObserver(draw);
        themes.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
        const sizes = new ResizeObserver(() => {
          if (chart && chart.width !== el.clientWidth) chart.setSize({ width: el.clientWidth, height: HEIGHT });
        });
        sizes.observe(el);
        watchers.push(themes, sizes);
      })
      .catch(() => setFailed(true));
    return () => {
      stopped = true;
      for (const w of watchers) w.disconnect();
      chart?.destroy();
    };
  }, [key]);
  return (
    <figure class="usage-chart">
      <figcaption>{title}</figcaption>
      {failed ? (
        <p class="hint">{t.chartUnavailable}</p>
      ) : (
        <div ref={box} class="usage-plot" role="img" aria-label={summary(title, usage, values, t)} />
      )}
    </figure>
  );
}

/** The figures of one source for the hours 0 … now. */
function perHour(source: LlmSourceUsage, hour: number, metric: Metric): number[] {
  const values = new Array<number>(hour + 1).fill(0);
  for (const h of source.byHour) if (h.hour <= hour) values[h.hour] = metric(h);
  return values;
}

/**
 * Stacked bars: the k-th series is the sum of the first k sources, and the tallest is drawn first, so each
 * source's colour shows as its own slice of the bar.
 */
function data(values: number[][]): uPlot.AlignedData {
  const hours = values[0]?.map((_, h) => h) ?? [];
  const sums: number[][] = [];
  let running = hours.map(() => 0);
  for (const row of values) {
    running = running.map((v, h) => v + (row[h] ?? 0));
    sums.push(running);
  }
  return [hours, ...sums.reverse()];
}

/** The source's colour: its CSS variable, and whether its slice and swatch are striped. */
function colourOf(name: string, i: number): { variable: string; striped: boolean; swatch: string } {
  if (name === OTHER_SOURCES) return { variable: "--chart-other", striped: false, swatch: "swatch-other" };
  const n = (i % PALETTE) + 1;
  const striped = n >= STRIPED_FROM;
  return { variable: `--chart-${n}`, striped, swatch: `swatch-${n}${striped ? " striped" : ""}` };
}

/** Diagonal stripes of the card's colour over `fill`, as the striped swatches draw them in CSS. */
function stripes(fill: string, gap: string): CanvasPattern | string {
  const tile = document.createElement("canvas");
  tile.width = 8;
  tile.height = 8;
  const ctx = tile.getContext("2d");
  if (!ctx) return fill;
  ctx.fillStyle = fill;
  ctx.fillRect(0, 0, 8, 8);
  ctx.strokeStyle = gap;
  ctx.lineWidth = 2;
  ctx.beginPath();
  for (const x of [-8, 0, 8]) {
    ctx.moveTo(x, 8);
    ctx.lineTo(x + 8, 0);
  }
  ctx.stroke();
  return ctx.createPattern(tile, "repeat") ?? fill;
}

function options(
  UPlot: typeof uPlot,
  width: number,
  values: number[][],
  colours: Array<{ variable: string; striped: boolean }>,
): uPlot.Options {
  const color = themeColors();
  const axis = { stroke: color("--muted"), grid: { stroke: color("--border"), width: 1 }, ticks: { show: false } };
  const bars = UPlot.paths.bars?.({ size: [0.7, 48] });
  const hours = values[0]?.length ?? 1;
  const series: uPlot.Series[] = values.map((_, i) => {
    const { variable, striped } = colours[i] ?? { variable: "--chart-other", striped: false };
    const solid = color(variable);
    const paint = striped ? stripes(solid, color("--card")) : solid;
    return { fill: () => paint, stroke: solid, width: 0, paths: bars, points: { show: false } };
  });
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    scales: {
      x: { time: false, range: () => [-0.5, hours - 0.5] },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      { ...axis, incrs: [1, 2, 3, 4, 6, 12], values: (_u, splits) => splits.map((h) => `${h}:00`) },
      {
        ...axis,
        size: 44,
        incrs: WHOLE_STEPS,
        values: (_u, splits) => splits.map(compact),
      },
    ],
    series: [{}, ...series.reverse()],
  };
}

/** What the chart shows, in words: each source's total today and its busiest hour. */
function summary(title: string, usage: LlmUsageToday, values: number[][], t: Messages): string {
  const parts = usage.sources.map((s, i) => {
    const row = values[i] ?? [];
    const total = row.reduce((a, b) => a + b, 0);
    const peak = row.indexOf(Math.max(...row));
    return total > 0 ? fill(t.usagePeak, { name: s.name, total, hour: peak }) : fill(t.usageNone, { name: s.name });
  });
  return fill(t.labelValue, { label: title, value: parts.join(t.listSeparator) });
}

function UsageTable({ usage, t }: { usage: LlmUsageToday; t: Messages }) {
  const unreported = usage.sources.reduce((n, s) => n + s.callsWithoutUsage, 0);
  const order = new Map(usage.sources.map((s, i) => [s.name, i]));
  const hours = usage.sources
    .flatMap((s) => s.byHour.map((h) => ({ source: s.name, ...h })))
    .sort((a, b) => a.hour - b.hour || (order.get(a.source) ?? 0) - (order.get(b.source) ?? 0));
  return (
    <>
      <ScrollBox label={t.usageTable}>
        <table class="usage-table">
          <caption>{t.usageTable}</caption>
          <thead>
            <tr>
              <th scope="col">{t.source}</th>
              <th scope="col">{t.turns}</th>
              <th scope="col">{t.promptTokens}</th>
              <th scope="col">{t.completionTokens}</th>
            </tr>
          </thead>
          <tbody>
            {usage.sources.map((s, i) => (
              <tr key={s.name}>
                <th scope="row" class="wrap" translate={false}>
                  <span class={`swatch ${colourOf(s.name, i).swatch}`} aria-hidden="true" />
                  <bdi>{s.name}</bdi>
                </th>
                <td>{s.turns}</td>
                <td>{s.promptTokens}</td>
                <td>{s.completionTokens}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      {unreported > 0 && <p class="hint">{fill(t.callsUnreported, { count: unreported })}</p>}
      <details>
        <summary>{t.usageByHour}</summary>
        <ScrollBox label={t.usageByHour}>
          <table class="usage-table">
            <caption class="visually-hidden">{t.usageByHour}</caption>
            <thead>
              <tr>
                <th scope="col">{t.hour}</th>
                <th scope="col">{t.source}</th>
                <th scope="col">{t.turns}</th>
                <th scope="col">{t.tokensSplit}</th>
              </tr>
            </thead>
            <tbody>
              {hours.map((h) => (
                <tr key={`${h.hour} ${h.source}`}>
                  <td>{`${h.hour}:00`}</td>
                  <th scope="row" class="wrap" translate={false}>
                    <bdi>{h.source}</bdi>
                  </th>
                  <td>{h.turns}</td>
                  <td>{`${h.promptTokens} + ${h.completionTokens}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      </details>
    </>
  );
}

/** 1234 → 1.2k: axis labels stay short on a phone. */
function compact(n: number): string {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return String(n);
}
