/**
 * The memory graph drawn with cytoscape (loaded only when the Memory tab opens): entities as nodes sized by
 * mentions, relations as labelled edges; drag, pan and zoom; a tap on an entity picks it (the facts list
 * below is the accessible view of the same data and follows the pick). Cytoscape would add a <style>
 * element, which the CSP refuses; an element with the id it looks for stops that, and styles.css carries
 * the one rule it wanted.
 */
import { useEffect, useRef } from "preact/hooks";

export interface GraphData {
  nodes: Array<{ name: string; type: string; mentions: number }>;
  edges: Array<{ subject: string; relation: string; object: string; status: string }>;
}

const STYLESHEET_ID = "__________cytoscape_stylesheet";

export function GraphView({ data, label, onPick }: { data: GraphData; label: string; onPick: (name: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let destroyed = false;
    let destroy = () => {};
    void import("cytoscape").then(({ default: cytoscape }) => {
      if (destroyed || !box.current) return;
      if (!document.getElementById(STYLESHEET_ID)) {
        const marker = document.createElement("meta");
        marker.id = STYLESHEET_ID;
        document.head.append(marker);
      }
      const css = getComputedStyle(document.documentElement);
      const color = (name: string) => css.getPropertyValue(name).trim() || "#888";
      const names = new Set(data.nodes.map((n) => n.name));
      const cy = cytoscape({
        container: box.current,
        elements: [
          ...data.nodes.map((n) => ({
            data: { id: n.name, label: n.name, weight: Math.min(60, 16 + n.mentions * 4) },
          })),
          ...data.edges
            .filter((e) => e.status === "active" && names.has(e.subject) && names.has(e.object))
            .map((e, i) => ({ data: { id: `e${i}`, source: e.subject, target: e.object, label: e.relation } })),
        ],
        style: [
          {
            selector: "node",
            style: {
              label: "data(label)",
              width: "data(weight)",
              height: "data(weight)",
              "background-color": color("--accent"),
              color: color("--fg"),
              "font-size": 11,
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
            },
          },
        ],
        layout: { name: data.nodes.length > 1 ? "cose" : "grid", animate: false },
      });
      cy.on("tap", "node", (event) => onPick(event.target.id() as string));
      destroy = () => cy.destroy();
    });
    return () => {
      destroyed = true;
      destroy();
    };
  }, [data, onPick]);
  return <div ref={box} class="graph" role="img" aria-label={label} />;
}
