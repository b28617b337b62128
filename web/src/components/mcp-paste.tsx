/**
 * "Paste JSON": a server's README snippet — Claude Desktop's `{"mcpServers": {…}}` or a bare `{name:
 * server}` — pasted as is, its servers added to the list in one save. A name the list has already is not
 * replaced silently: the first press names those servers, and only a second press replaces them.
 */
import { useState } from "preact/hooks";
import { fill, useT } from "../i18n";
import { clashes, type McpConfig, type McpServers, parsePasted } from "../mcp-config";
import { ErrorLine } from "./status";

export function McpPaste(props: {
  config: McpConfig;
  busy: boolean;
  onAdd: (servers: McpServers) => Promise<boolean>;
}) {
  const t = useT();
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  /** The names a press would replace, once said; the next press replaces them. */
  const [replacing, setReplacing] = useState<string[] | null>(null);
  const add = async () => {
    const pasted = parsePasted(text);
    if ("problem" in pasted) {
      setProblem(t[`mcpPaste_${pasted.problem}`]);
      return;
    }
    const same = clashes(props.config, pasted.servers);
    if (same.length > 0 && replacing === null) {
      setReplacing(same);
      setProblem(null);
      return;
    }
    setProblem(null);
    if (await props.onAdd(pasted.servers)) {
      setText("");
      setReplacing(null);
    }
  };
  return (
    <details class="card">
      <summary>{t.mcpPasteTitle}</summary>
      <div class="stack">
        <label for="mcp-paste">{t.mcpPasteLabel}</label>
        <textarea
          id="mcp-paste"
          rows={6}
          value={text}
          aria-describedby="mcp-paste-hint"
          onInput={(e) => {
            setText(e.currentTarget.value);
            setReplacing(null);
          }}
        />
        <small id="mcp-paste-hint" class="hint">
          {t.mcpPasteHint}
        </small>
        <ErrorLine message={problem} />
        {replacing && (
          <p class="notice" role="status">
            {fill(t.mcpPasteClash, { names: replacing.join(t.listComma) })}
          </p>
        )}
        <div class="row">
          <button type="button" disabled={props.busy || text.trim() === ""} onClick={() => void add()}>
            {replacing ? t.mcpPasteReplace : t.mcpPasteAdd}
          </button>
        </div>
      </div>
    </details>
  );
}
