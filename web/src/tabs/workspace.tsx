/**
 * Workspace: the folder the agent's file tools work in (uploads land in uploads/), browsed folder by folder,
 * each file downloadable and removable (after a second click that confirms), and the commands the agent ran
 * or was refused, newest first.
 */
import { useState } from "preact/hooks";
import { api } from "../api";
import { ErrorLine, Loading } from "../components/status";
import { Time } from "../components/time";
import { useApi } from "../components/use-api";
import { errorText } from "../error-text";
import { bytes } from "../format";
import { useT } from "../i18n";

interface Entry {
  name: string;
  type: "file" | "folder" | "link" | "other";
  size: number;
  modifiedAt: number;
}

interface Command {
  id: number;
  command: string;
  startedAt: number;
  status: string;
  exitCode?: number | null;
  durationMs?: number;
  allowedBy?: string;
}

const join = (folder: string, name: string) => (folder === "." || folder === "" ? name : `${folder}/${name}`);

export function WorkspaceTab() {
  const t = useT();
  const [folder, setFolder] = useState(".");
  const [confirm, setConfirm] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const listing = useApi<{ path: string; entries: Entry[]; more?: number }>(
    `/api/v1/workspace?path=${encodeURIComponent(folder)}`,
  );
  const commands = useApi<{ commands: Command[] }>("/api/v1/cmd/history", 10_000);
  const up = folder.includes("/") ? folder.slice(0, folder.lastIndexOf("/")) : ".";

  const remove = async (path: string) => {
    try {
      await api("DELETE", `/api/v1/workspace/file?path=${encodeURIComponent(path)}`);
      setError(null);
    } catch (err) {
      setError(errorText(t, err));
    }
    setConfirm(null);
    await listing.reload();
  };

  return (
    <div class="stack">
      <h1>{t.tabWorkspace}</h1>
      <ErrorLine message={error} />
      <section class="card" aria-labelledby="w-files">
        <div class="row">
          <h2 id="w-files">{t.workspaceFiles}</h2>
          <code translate={false}>{folder === "." ? "workspace/" : `workspace/${folder}/`}</code>
          {folder !== "." && (
            <button type="button" onClick={() => setFolder(up)}>
              {t.folderUp}
            </button>
          )}
        </div>
        <ErrorLine message={listing.error} />
        {!listing.data ? (
          <Loading />
        ) : listing.data.entries.length === 0 ? (
          <p class="hint">{t.workspaceEmpty}</p>
        ) : (
          <ul class="plain-list">
            {listing.data.entries.map((e) => {
              const path = join(folder, e.name);
              return (
                <li key={e.name} class="row">
                  {e.type === "folder" ? (
                    <button type="button" class="link" onClick={() => setFolder(path)}>
                      <span translate={false}>{e.name}/</span>
                    </button>
                  ) : (
                    <span translate={false}>{e.name}</span>
                  )}
                  {e.type === "file" && <span class="hint">{bytes(e.size)}</span>}
                  {e.modifiedAt > 0 && <Time ms={e.modifiedAt} />}
                  {e.type !== "folder" && (
                    <>
                      {e.type === "file" && (
                        <a href={`/api/v1/workspace/file?path=${encodeURIComponent(path)}`} download={e.name}>
                          {t.download}
                        </a>
                      )}
                      <button
                        type="button"
                        class="danger"
                        aria-label={(confirm === path ? t.deleteSureNamed : t.deleteNamed).replace("{name}", e.name)}
                        onClick={() => (confirm === path ? void remove(path) : setConfirm(path))}
                      >
                        {confirm === path ? t.deleteSure : t.delete}
                      </button>
                    </>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <section class="card" aria-labelledby="w-commands">
        <h2 id="w-commands">{t.commandsTitle}</h2>
        <ErrorLine message={commands.error} />
        {!commands.data ? (
          <Loading />
        ) : commands.data.commands.length === 0 ? (
          <p class="hint">{t.commandsEmpty}</p>
        ) : (
          <ul class="plain-list">
            {commands.data.commands.map((c) => (
              <li key={c.id}>
                <Time ms={c.startedAt} /> <strong>{c.status === "ok" ? `exit ${c.exitCode}` : c.status}</strong>{" "}
                <code translate={false}>{c.command}</code>
                {c.allowedBy ? <span class="hint"> ({c.allowedBy})</span> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
