/**
 * One MCP server on the Plugins tab: its state (running; restarting with the error and the next try;
 * disabled), the server's own name and version, its tools, a switch that turns it off or on, Restart, Edit
 * and Remove, the last lines it logged and its tools with a checkbox each (folded: a server may list
 * hundreds, which render a page at a time and only when unfolded), each marked read-only or may change
 * things from the server's hints, with why it is left out if it is.
 */
import { useState } from "preact/hooks";
import { fill, type Messages, useT } from "../i18n";
import type { McpServerConfig } from "../mcp-config";
import type { McpServerStatus, McpToolStatus } from "../types";
import { type FactRow, Facts } from "./facts";
import { ShowMore, useShown } from "./show-more";
import { Badge } from "./status";
import { Time } from "./time";

export interface ServerActions {
  setDisabled: (disabled: boolean) => void;
  setTool: (tool: string, enabled: boolean) => void;
  restart: () => void;
  edit: () => void;
  remove: () => void;
}

export function McpServerCard(props: {
  name: string;
  config: McpServerConfig;
  status?: McpServerStatus;
  busy: boolean;
  actions: ServerActions;
}) {
  const t = useT();
  const { name, config, status, busy, actions } = props;
  const [removing, setRemoving] = useState(false);
  const id = `mcp-server-${name}`;
  const off = config.disabled === true;
  return (
    <li class="card stack" aria-labelledby={id}>
      <div class="row">
        <h3 id={id} translate={false}>
          {name}
        </h3>
        <StateBadge status={status} off={off} t={t} />
        <label class="switch">
          <input
            type="checkbox"
            role="switch"
            aria-checked={!off}
            checked={!off}
            disabled={busy}
            aria-label={fill(t.mcpEnableServer, { name })}
            onChange={(e) => actions.setDisabled(!e.currentTarget.checked)}
          />
          <span aria-hidden="true">{off ? t.switchOff : t.switchOn}</span>
        </label>
      </div>
      <Facts rows={factsOf(t, config, status)} />
      {status?.state === "restarting" && status.retryAt !== undefined && (
        <p class="hint">
          {t.mcpNextTry}
          {t.colon}
          <Time ms={status.retryAt} timeOnly />
        </p>
      )}
      <div class="row">
        <button
          type="button"
          disabled={busy || off}
          onClick={actions.restart}
          aria-label={fill(t.mcpRestartServer, { name })}
        >
          {t.restart}
        </button>
        <button type="button" disabled={busy} onClick={actions.edit} aria-label={fill(t.mcpEditServer, { name })}>
          {t.edit}
        </button>
        {removing ? (
          <>
            <button type="button" class="danger" disabled={busy} onClick={actions.remove}>
              {fill(t.mcpRemoveConfirm, { name })}
            </button>
            <button type="button" onClick={() => setRemoving(false)}>
              {t.cancel}
            </button>
          </>
        ) : (
          <button
            type="button"
            disabled={busy}
            onClick={() => setRemoving(true)}
            aria-label={fill(t.mcpRemoveServer, { name })}
          >
            {t.mcpRemove}
          </button>
        )}
      </div>
      {status && status.log.length > 0 && (
        <details>
          <summary>{fill(t.mcpLog, { count: status.log.length })}</summary>
          <pre class="log" translate={false}>
            {status.log.join("\n")}
          </pre>
        </details>
      )}
      {status && status.tools.length > 0 && (
        <ToolList tools={status.tools} off={new Set(config.disabledTools)} busy={busy} onTool={actions.setTool} t={t} />
      )}
    </li>
  );
}

function StateBadge({ status, off, t }: { status?: McpServerStatus; off: boolean; t: Messages }) {
  if (off) return <Badge tone="muted">{t.mcpState_disabled}</Badge>;
  const state = status?.state ?? "starting";
  const tone = state === "running" ? "ok" : state === "restarting" ? "bad" : "muted";
  return <Badge tone={tone}>{t[`mcpState_${state}`]}</Badge>;
}

function factsOf(t: Messages, config: McpServerConfig, status?: McpServerStatus): FactRow[] {
  const rows: FactRow[] = [
    [t.mcpReach, config.url ?? [config.command ?? "", ...(config.args ?? [])].join(" "), { data: true, wrap: true }],
  ];
  if (status?.server) rows.push([t.mcpServerVersion, status.server, { data: true }]);
  if (status) {
    const on = status.tools.filter((tool) => tool.enabled).length;
    rows.push([t.mcpTools, fill(t.mcpToolCount, { on, total: status.tools.length })]);
    rows.push([t.mcpRestarts, String(status.restarts)]);
  }
  if (status?.lastError) rows.push([t.lastError, status.lastError, { data: true, wrap: true }]);
  return rows;
}

/** The tools, folded; unfolded, a page at a time, so a server of 500 tools costs nothing until looked at. */
function ToolList(props: {
  tools: McpToolStatus[];
  /** Switched off in the saved list (the status follows within a second or two). */
  off: ReadonlySet<string>;
  busy: boolean;
  onTool: (tool: string, enabled: boolean) => void;
  t: Messages;
}) {
  const { tools, off, busy, onTool, t } = props;
  const [open, setOpen] = useState(false);
  const [shown, more] = useShown();
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{fill(t.mcpToolsOf, { count: tools.length })}</summary>
      {open && (
        <>
          <ul class="mcp-tools">
            {tools.slice(0, shown).map((tool) => (
              <li key={tool.tool}>
                <label>
                  <input
                    type="checkbox"
                    checked={!off.has(tool.tool)}
                    disabled={busy}
                    onChange={(e) => onTool(tool.tool, e.currentTarget.checked)}
                  />
                  <code translate={false}>{tool.tool}</code>
                </label>{" "}
                <Badge tone={tool.hints.readOnlyHint ? "ok" : "warn"}>
                  {tool.hints.readOnlyHint
                    ? t.mcpReadOnly
                    : tool.hints.destructiveHint
                      ? t.mcpDestructive
                      : t.mcpMayChange}
                </Badge>
                {tool.description && (
                  <small class="hint" translate={false}>
                    {tool.description}
                  </small>
                )}
                {tool.problem && (
                  <small class="error" translate={false}>
                    {tool.problem}
                  </small>
                )}
              </li>
            ))}
          </ul>
          <ShowMore shown={shown} total={tools.length} onMore={more} />
        </>
      )}
    </details>
  );
}
