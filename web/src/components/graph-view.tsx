/**
 * The memory graph drawn with cytoscape (loaded only when the Memory tab opens): entities as nodes sized by
 * mentions, relations as labelled edges; drag, pan and zoom; a tap on an entity picks it (the facts list
 * below is the accessible view of the same data and follows the pick). Cytoscape would add a <style>
 * element, which the CSP refuses; an element with the id it looks for stops that, and styles.css carries
 * the one rule it wanted.
 *
 * A hundred labelled entities cost cytoscape most of a second of main-thread work on a slow machine (1.4 s
 * measured in one task with the force layout), which froze the tab. So the elements are added a few at a
 * time, one task each, and a graph of many nodes gets the cheap concentric layout (most mentioned in the
 * middle) instead of the force layout; labels are not drawn while they would be too small to read.
 */
import type { Core, ElementDefinition, LayoutOptions, StylesheetJson } from "cytoscape";
import { useEffect, useRef } from "preact/hooks";
import { themeColors } from "../theme";

export interface GraphData {
  nodes: Array<{ name: string; type: string; mentions: number }>;
  edges: Array<{ id?: number; subject: string; relation: string; object: string; status: string }>;
}

const STYLESHEET_ID = "__________cytoscape_stylesheet";
/** Elements added per task. */
const CHUNK = 20;
/** Up to this many nodes the force layout is cheap enough (its cost grows with the square of the nodes). */
const FORCE_LAYOUT_MAX = 30;

export function GraphView({ data, label, onPick }: { data: GraphData; label: string; onPick: (name: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let destroyed = false;
    let cy: Core | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void import("cytoscape").then(({ default: cytoscape }) => {
      if (destroyed || !box.current) return;
      if (!document.getElementById(STYLESHEET_ID)) {
        const marker = document.createElement("meta");
        marker.id = STYLESHEET_ID;
        document.head.append(marker);
      }
      const graph = cytoscape({ container: box.current, style: graphStyle(), elements: [] });
      cy = graph;
      graph.on("tap", "node", (event) => onPick(event.target.id() as string));
      const elements = elementsOf(data);
      let next = 0;
      const step = () => {
        if (destroyed) return;
        graph.add(elements.slice(next, next + CHUNK));
        next += CHUNK;
        if (next < elements.length) timer = setTimeout(step, 0);
        else graph.layout(layoutFor(data.nodes.length)).run();
      };
      step();
    });
    return () => {
      destroyed = true;
      if (timer !== undefined) clearTimeout(timer);
      cy?.destroy();
    };
  }, [data, onPick]);
  return <div ref={box} class="graph" role="img" aria-label={label} />;
}

/** Nodes first (edges need both ends), then the active facts between two drawn nodes. */
function elementsOf(data: GraphData): ElementDefinition[] {
  const names = new Set(data.nodes.map((n) => n.name));
  return [
    ...data.nodes.map((n) => ({ data: { id: n.name, label: n.name, weight: Math.min(60, 16 + n.mentions * 4) } })),
    ...data.edges
      .filter((e) => e.status === "active" && names.has(e.subject) && names.has(e.object))
      .map((e, i) => ({ data: { id: `e${e.id ?? i}`, source: e.subject, target: e.object, label: e.relation } })),
  ];
}

function layoutFor(nodes: number): LayoutOptions {
  if (nodes <= 1) return { name: "grid" };
  if (nodes <= FORCE_LAYOUT_MAX) return { name: "cose", animate: false };
  return { name: "concentric", animate: false, minNodeSpacing: 8 };
}

function graphStyle(): StylesheetJson {
  const color = themeColors();
  return [
    {
      selector: "node",
      style: {
        label: "data(label)",
        width: "data(weight)",
        height: "data(weight)",
        "background-color": color("--accent"),
        color: color("--fg"),
        "font-size": 11,
        "min-zoomed-font-size": 7,
      },
    },
    {
      selector: "edge",
      style: {
        label: "data(label)",
        "curve-style": "bezier",
        "target-arrow-shape": "triangle",
        "line-color": color("--border"),
        "target-arrow-color": color("--border"),
        color: color("--muted"),
        "font-size": 9,
        "min-zoomed-font-size": 7,
      },
    },
  ];
}
