/**
 * Plugins: each with its state, health, capabilities and last error, and the buttons to enable, disable and
 * reload it. A refused action shows the server's message (e.g. the web UI cannot disable itself).
 */
import { useState } from "preact/hooks";
import { post } from "../api";
import { Badge, ErrorLine, healthTone, Loading } from "../components/status";
import { useApi } from "../components/use-api";
import { useT } from "../i18n";
import type { PluginInfo } from "../types";

const RUNNING = new Set(["running", "starting", "restarting", "unhealthy"]);

export function PluginsTab() {
  const t = useT();
  const list = useApi<{ plugins: PluginInfo[] }>("/api/v1/plugins", 10_000);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const act = async (label: string, path: string, body?: unknown) => {
    setBusy(label);
    setError(null);
    setNotice(null);
    try {
      await post(path, body);
      setNotice(`${label}: ${t.done}`);
    } catch (err) {
      setError(`${label}: ${(err as Error).message}`);
    } finally {
      setBusy(null);
      await list.reload();
    }
  };

  return (
    <div class="stack">
      <div class="row">
        <h1>{t.tabPlugins}</h1>
        <button type="button" disabled={busy !== null} onClick={() => act(t.reloadAll, "/api/v1/plugins/reload")}>
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
            <li key={p.name} class="card" aria-labelledby={`plugin-${p.name}`}>
              <div class="row">
                <h2 id={`plugin-${p.name}`}>{p.name}</h2>
                <Badge tone={RUNNING.has(p.state) ? "ok" : p.state === "failed" ? "bad" : "muted"}>{p.state}</Badge>
                <Badge tone={healthTone(p.health)}>{`${t.health}: ${p.health}`}</Badge>
              </div>
              {p.description && <p>{p.description}</p>}
              <dl class="facts">
                <div>
                  <dt>{t.kind}</dt>
                  <dd>{p.kind}</dd>
                </div>
                <div>
                  <dt>{t.capabilities}</dt>
                  <dd class="wrap">{p.capabilities.length ? p.capabilities.join(", ") : t.none}</dd>
                </div>
                {p.healthReason && (
                  <div>
                    <dt>{t.healthReason}</dt>
                    <dd class="wrap">{p.healthReason}</dd>
                  </div>
                )}
                <div>
                  <dt>{t.lastError}</dt>
                  <dd class="wrap">{p.lastError ?? t.none}</dd>
                </div>
              </dl>
              <div class="row">
                <button
                  type="button"
                  aria-label={`${t.enable} ${p.name}`}
                  disabled={busy !== null || RUNNING.has(p.state)}
                  onClick={() => act(`${t.enable} ${p.name}`, `/api/v1/plugins/${encodeURIComponent(p.name)}/enable`)}
                >
                  {t.enable}
                </button>
                <button
                  type="button"
                  aria-label={`${t.disable} ${p.name}`}
                  disabled={busy !== null || !RUNNING.has(p.state)}
                  onClick={() => act(`${t.disable} ${p.name}`, `/api/v1/plugins/${encodeURIComponent(p.name)}/disable`)}
                >
                  {t.disable}
                </button>
                <button
                  type="button"
                  aria-label={`${t.reload} ${p.name}`}
                  disabled={busy !== null || p.kind === "builtin"}
                  onClick={() => act(`${t.reload} ${p.name}`, "/api/v1/plugins/reload", { name: p.name })}
                >
                  {t.reload}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
