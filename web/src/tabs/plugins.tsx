/**
 * Plugins: each on a card with its state, and while it runs its health, process, version and uptime, plus
 * its crashes, capabilities, last error and its own settings; the buttons enable, disable, reload (an
 * external plugin) and restart it. What an action did is said in words: a reload of an unchanged plugin
 * says it left it running, a restart names the new process. A refused action shows the server's message
 * (e.g. the web UI cannot disable or restart itself).
 */
import { useMemo, useState } from "preact/hooks";
import { post } from "../api";
import { type FactRow, Facts } from "../components/facts";
import { SettingsForm } from "../components/settings-form";
import { Badge, ErrorLine, healthTone, Loading } from "../components/status";
import { useApi } from "../components/use-api";
import { errorText } from "../error-text";
import { duration } from "../format";
import { fill, type Messages, useT } from "../i18n";
import type { ConfigDefInfo, ConfigEntry, PluginInfo, ReloadReport, SettingsAnswer } from "../types";
import { McpServers } from "./mcp-servers";

/** States in which a plugin's code runs (so it can be disabled or restarted, and has a health). */
const RUNNING = new Set(["running", "starting", "restarting", "unhealthy"]);
const ACTIONS = ["enable", "disable", "restart"] as const;
type Action = (typeof ACTIONS)[number];
/** When each action's button can be pressed (Reload, for external plugins, is apart). */
const ALLOWED: Record<Action, (p: PluginInfo) => boolean> = {
  enable: (p) => !RUNNING.has(p.state),
  disable: (p) => RUNNING.has(p.state),
  restart: (p) => p.state !== "disabled",
};

export function PluginsTab() {
  const t = useT();
  const list = useApi<{ plugins: PluginInfo[]; now: number }>("/api/v1/plugins", 10_000);
  const settings = useApi<SettingsAnswer>("/api/v1/settings?prefix=plugin.");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const entries = useMemo(() => new Map((settings.data?.settings ?? []).map((e) => [e.key, e])), [settings.data]);

  /** Runs one action; `said` turns its answer into the sentence shown. */
  const act = async <T,>(label: string, path: string, said: (answer: T) => string, body?: unknown) => {
    setBusy(label);
    setError(null);
    setNotice(null);
    try {
      setNotice(said(await post<T>(path, body)));
    } catch (err) {
      setError(fill(t.labelValue, { label, value: errorText(t, err) }));
    } finally {
      setBusy(null);
      await list.reload();
    }
  };
  const onPlugin = (p: PluginInfo, action: Action) =>
    act<{ plugin: PluginInfo | null }>(
      fill(t[`${action}Plugin`], { name: p.name }),
      `/api/v1/plugins/${encodeURIComponent(p.name)}/${action}`,
      ({ plugin }) => actionSaid(t, action, p.name, plugin),
    );

  return (
    <div class="stack">
      <div class="row">
        <h1>{t.tabPlugins}</h1>
        <button
          type="button"
          disabled={busy !== null}
          onClick={() => act<ReloadReport>(t.reloadAll, "/api/v1/plugins/reload", (r) => reloadSaid(t, r))}
        >
          {t.reloadAll}
        </button>
      </div>
      <ErrorLine message={error ?? list.error} />
      <p role="status" class="notice">
        {notice ?? ""}
      </p>
      {!list.data ? (
        <Loading />
      ) : (
        <ul class="cards" aria-label={t.plugins}>
          {list.data.plugins.map((p) => (
            <li key={p.name} class="card stack" aria-labelledby={`plugin-${p.name}`}>
              <div class="row">
                <h2 id={`plugin-${p.name}`} translate={false}>
                  {p.name}
                </h2>
                <Badge tone={RUNNING.has(p.state) ? "ok" : p.state === "failed" ? "bad" : "muted"}>
                  {(t[`state_${p.state}` as keyof Messages] as string | undefined) ?? p.state}
                </Badge>
                {RUNNING.has(p.state) && (
                  <Badge tone={healthTone(p.health)}>
                    {fill(t.labelValue, { label: t.health, value: t[`health_${p.health}`] })}
                  </Badge>
                )}
              </div>
              {p.description && <p translate={false}>{p.description}</p>}
              <Facts rows={factsOf(p, t, list.data?.now ?? 0)} />
              <div class="row">
                {ACTIONS.map((action) => (
                  <button
                    key={action}
                    type="button"
                    aria-label={fill(t[`${action}Plugin`], { name: p.name })}
                    disabled={busy !== null || !ALLOWED[action](p)}
                    onClick={() => onPlugin(p, action)}
                  >
                    {t[action]}
                  </button>
                ))}
                <button
                  type="button"
                  aria-label={fill(t.reloadPlugin, { name: p.name })}
                  disabled={busy !== null || p.kind === "builtin" || p.state === "disabled"}
                  onClick={() =>
                    act<ReloadReport>(
                      fill(t.reloadPlugin, { name: p.name }),
                      "/api/v1/plugins/reload",
                      (r) => reloadSaid(t, r, p.name),
                      { name: p.name },
                    )
                  }
                >
                  {t.reload}
                </button>
              </div>
              <PluginSettings
                name={p.name}
                defs={settings.data?.defs ?? []}
                entries={entries}
                onSaved={settings.reload}
              />
            </li>
          ))}
        </ul>
      )}
      <McpSection plugin={list.data?.plugins.find((p) => p.name === "mcp")} />
    </div>
  );
}

/** The MCP servers while the mcp plugin runs (its tools answer for them); else why they are not shown. */
function McpSection({ plugin }: { plugin?: PluginInfo }) {
  const t = useT();
  if (!plugin) return null;
  if (RUNNING.has(plugin.state)) return <McpServers />;
  return <p class="hint">{t.mcpPluginOff}</p>;
}

/** What the card says of the plugin: its kind, and while it runs its process and uptime; crashes, capabilities, errors. */
function factsOf(p: PluginInfo, t: Messages, now: number): FactRow[] {
  const rows: FactRow[] = [[t.kind, t[`kind_${p.kind}`] ?? p.kind]];
  if (p.version) rows.push([t.version, p.version, { data: true }]);
  if (p.pid !== undefined) rows.push([t.pid, String(p.pid)]);
  if (p.startedAt !== undefined) rows.push([t.uptime, duration((now - p.startedAt) / 1000, t.lang)]);
  if (p.kind !== "builtin") rows.push([t.crashes, String(p.crashes)], [t.restarts, String(p.restarts)]);
  rows.push([
    t.capabilities,
    p.capabilities.length ? p.capabilities.join(", ") : t.none,
    { wrap: true, data: p.capabilities.length > 0 },
  ]);
  if (p.healthReason) rows.push([t.healthReason, p.healthReason, { wrap: true, data: true }]);
  rows.push([t.lastError, p.lastError ?? t.none, { wrap: true, data: p.lastError !== undefined }]);
  return rows;
}

/** The plugin's own settings (`plugin.<name>.*`), editable here as on the Settings tab. */
function PluginSettings(props: {
  name: string;
  defs: ConfigDefInfo[];
  entries: Map<string, ConfigEntry>;
  onSaved: () => Promise<void>;
}) {
  const t = useT();
  const prefix = `plugin.${props.name}.`;
  const defs = props.defs.filter((d) => d.key.startsWith(prefix) && !d.key.includes("*"));
  if (defs.length === 0) return null;
  return (
    <details>
      <summary id={`plugin-settings-${props.name}-summary`}>{fill(t.pluginSettings, { name: props.name })}</summary>
      <SettingsForm
        labelledBy={`plugin-settings-${props.name}-summary`}
        title={fill(t.pluginSettings, { name: props.name })}
        defs={defs}
        entries={props.entries}
        query=""
        hidden={false}
        idPrefix={`plugin-settings-${props.name}`}
        onSaved={props.onSaved}
      />
    </details>
  );
}

function actionSaid(t: Messages, action: Action, name: string, p: PluginInfo | null) {
  if (action === "enable") return fill(t.enabledOne, { name });
  if (action === "disable") return fill(t.disabledOne, { name });
  return p?.pid !== undefined ? fill(t.restartedPid, { name, pid: p.pid }) : fill(t.restartedOne, { name });
}

/** What a reload did, one plugin's or all of them, in a sentence; a failure is named with its reason. */
function reloadSaid(t: Messages, r: ReloadReport, name?: string): string {
  const failed = r.failed.map((f) => fill(t.reloadFailed, { name: f.name, error: f.error }));
  if (name !== undefined && failed.length === 0) {
    return fill(r.unchanged.includes(name) ? t.unchangedOne : t.reloadedOne, { name });
  }
  const names = (list: string[]) => (list.length ? list.join(t.listComma) : t.none);
  const summary = fill(t.reloadAllDone, {
    reloaded: names(r.reloaded),
    added: names(r.added),
    removed: names(r.removed),
    unchanged: names(r.unchanged),
  });
  return [name === undefined ? summary : "", ...failed].filter(Boolean).join(" ");
}
