/**
 * The Plugins tab's "MCP servers" section: every server of `plugin.mcp.servers` with what the mcp plugin
 * says of it (GET /api/v1/mcp/servers, polled while shown), a form to add or edit one, a box to paste a
 * README's JSON, and per server its switch, its tools' checkboxes, Restart and Remove. Every change writes
 * the whole list through the settings API, as it was listed (secrets masked: the daemon keeps the stored
 * ones), and the daemon's refusal — which part of the list is wrong — is shown as it says it.
 */
import { useState } from "preact/hooks";
import { post } from "../api";
import { McpPaste } from "../components/mcp-paste";
import { McpServerCard, type ServerActions } from "../components/mcp-server-card";
import { McpServerFormView } from "../components/mcp-server-form";
import { useSaver } from "../components/settings-form";
import { ErrorLine, Loading } from "../components/status";
import { useApi } from "../components/use-api";
import { errorText } from "../error-text";
import { fill, useT } from "../i18n";
import {
  formOf,
  type McpConfig,
  type McpServerConfig,
  readConfig,
  serverOf,
  withDisabled,
  withServer,
  withServers,
  withTool,
  writeConfig,
} from "../mcp-config";
import type { McpServerStatus, SettingsAnswer } from "../types";

const KEY = "plugin.mcp.servers";
const POLL_MS = 3_000;

export function McpServers() {
  const t = useT();
  const status = useApi<{ servers: McpServerStatus[] }>("/api/v1/mcp/servers", POLL_MS);
  const setting = useApi<SettingsAnswer>(`/api/v1/settings?prefix=${KEY}`);
  const saver = useSaver(async () => {
    await setting.reload();
    await status.reload();
  });
  /** The server being edited: its name, or "" for a new one; null while no form is open. */
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<{ notice?: string; error?: string }>({});

  const def = setting.data?.defs.find((d) => d.key === KEY);
  const listed = setting.data?.settings.find((e) => e.key === KEY)?.value ?? def?.default;
  const config = listed === undefined ? null : readConfig(listed);

  const write = async (next: McpConfig, done: string): Promise<boolean> => {
    setBusy(true);
    setSaid({});
    try {
      return await saver.save({ [KEY]: writeConfig(next) }, done);
    } finally {
      setBusy(false);
    }
  };
  const restart = async (name: string) => {
    setBusy(true);
    setSaid({});
    try {
      await post(`/api/v1/mcp/servers/${encodeURIComponent(name)}/restart`);
      setSaid({ notice: fill(t.mcpRestarted, { name }) });
    } catch (err) {
      setSaid({ error: fill(t.labelValue, { label: fill(t.mcpRestartServer, { name }), value: errorText(t, err) }) });
    } finally {
      setBusy(false);
      await status.reload();
    }
  };

  if (!setting.data || !config) {
    return (
      <section class="stack" aria-labelledby="mcp-title">
        <h2 id="mcp-title">{t.mcpTitle}</h2>
        {setting.data ? <ErrorLine message={t.mcpUnreadable} /> : <Loading />}
        <ErrorLine message={setting.error} />
      </section>
    );
  }
  const names = Object.keys(config.servers);
  const byName = new Map((status.data?.servers ?? []).map((s) => [s.name, s]));
  const actionsOf = (name: string, server: McpServerConfig): ServerActions => ({
    setDisabled: (off) =>
      void write(
        withServer(config, name, withDisabled(server, off)),
        fill(off ? t.mcpTurnedOff : t.mcpTurnedOn, { name }),
      ),
    setTool: (tool, on) =>
      void write(
        withServer(config, name, withTool(server, tool, on)),
        fill(on ? t.mcpToolOn : t.mcpToolOff, { name, tool }),
      ),
    restart: () => void restart(name),
    edit: () => setEditing(name),
    remove: () => void write(withServer(config, name, undefined), fill(t.mcpRemoved, { name })),
  });
  const refused = saver.errors[KEY] ?? saver.failure;

  return (
    <section class="stack" aria-labelledby="mcp-title">
      <div class="row">
        <h2 id="mcp-title">{t.mcpTitle}</h2>
        <button type="button" disabled={busy || editing !== null} onClick={() => setEditing("")}>
          {t.mcpAdd}
        </button>
      </div>
      <p class="hint">{t.mcpIntro}</p>
      <ErrorLine message={said.error ?? refused ?? status.error} />
      <p role="status" class="notice">
        {said.notice ?? saver.notice}
      </p>
      {editing !== null && (
        <McpServerFormView
          key={editing}
          initial={formOf(editing, config.servers[editing])}
          editing={editing !== ""}
          taken={names.filter((n) => n !== editing)}
          busy={busy}
          onCancel={() => setEditing(null)}
          onSave={async (form) => {
            const saved = await write(
              withServer(config, form.name, serverOf(form, config.servers[editing])),
              fill(t.mcpSaved, { name: form.name }),
            );
            if (saved) setEditing(null);
            return saved;
          }}
        />
      )}
      <McpPaste
        config={config}
        busy={busy}
        onAdd={(servers) =>
          write(withServers(config, servers), fill(t.mcpAdded, { names: Object.keys(servers).join(t.listComma) }))
        }
      />
      {names.length === 0 ? (
        <p class="hint">{t.mcpNone}</p>
      ) : (
        <ul class="cards" aria-label={t.mcpTitle}>
          {names.map((name) => (
            <McpServerCard
              key={name}
              name={name}
              config={config.servers[name]}
              status={byName.get(name)}
              busy={busy}
              actions={actionsOf(name, config.servers[name])}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
