/**
 * Knowledge: the base's tree (categories and items), one item to read and edit, a new item by path, search,
 * and delete with a confirmation step. The server validates paths and sizes; its refusals show as they are.
 */
import { useState } from "preact/hooks";
import { api, get } from "../api";
import { QueryForm } from "../components/query-form";
import { ErrorLine, Loading } from "../components/status";
import { useApi } from "../components/use-api";
import { errorText } from "../error-text";
import { fill, useT } from "../i18n";

interface Node {
  name: string;
  path: string;
  kind: "category" | "item";
  children?: Node[];
}
interface Entry {
  path: string;
  content: string;
  size: number;
  updatedAt: number;
}
interface Hit {
  path: string;
  score: number;
  snippet?: string;
}

export function KnowledgeTab() {
  const t = useT();
  const tree = useApi<{ tree: Node[] }>("/api/v1/knowledge");
  const [entry, setEntry] = useState<Entry | null>(null);
  const [draft, setDraft] = useState("");
  const [newPath, setNewPath] = useState("");
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState("");
  const item = (path: string) => `/api/v1/knowledge/item?path=${encodeURIComponent(path)}`;

  const run = async (fn: () => Promise<void>) => {
    setError(null);
    setNotice("");
    try {
      await fn();
    } catch (err) {
      setError(errorText(t, err));
    }
  };
  const open = (path: string) =>
    run(async () => {
      const e = await get<Entry>(item(path));
      setEntry(e);
      setDraft(e.content);
      setConfirmDelete(false);
    });
  const save = () =>
    run(async () => {
      if (!entry) return;
      setEntry(await api<Entry>("PUT", item(entry.path), { content: draft }));
      setNotice(t.saved);
      await tree.reload();
    });
  const create = (event: Event) => {
    event.preventDefault();
    const path = newPath.trim();
    if (!path) return;
    void run(async () => {
      const e = await api<Entry>("PUT", item(path), { content: `# ${path.split("/").pop()}\n` });
      setEntry(e);
      setDraft(e.content);
      setNewPath("");
      await tree.reload();
    });
  };
  const remove = () =>
    run(async () => {
      if (!entry) return;
      await api("DELETE", item(entry.path));
      setNotice(fill(t.labelValue, { label: t.deleted, value: entry.path }));
      setEntry(null);
      setConfirmDelete(false);
      await tree.reload();
    });

  return (
    <div class="stack">
      <h1>{t.tabKnowledge}</h1>
      <ErrorLine message={error ?? tree.error} />
      <p role="status" class="notice">
        {notice}
      </p>
      <div class="split">
        <section class="card stack" aria-labelledby="kb-tree">
          <h2 id="kb-tree">{t.kbTree}</h2>
          <QueryForm
            id="kb-search"
            label={t.search}
            button={t.search}
            onSubmit={(v) =>
              run(async () =>
                setHits((await get<{ hits: Hit[] }>(`/api/v1/knowledge/search?q=${encodeURIComponent(v)}`)).hits),
              )
            }
          />
          {hits && (
            <ul class="results" aria-label={t.results}>
              {hits.length === 0 && <li>{t.noResults}</li>}
              {hits.map((h) => (
                <li key={h.path}>
                  <button type="button" class="link" onClick={() => open(h.path)} translate={false}>
                    {h.path}
                  </button>
                </li>
              ))}
            </ul>
          )}
          {!tree.data ? <Loading /> : <Tree nodes={tree.data.tree} onOpen={open} empty={t.noResults} />}
          <form class="row" onSubmit={create}>
            <label for="kb-new">{t.kbNewPath}</label>
            <input
              id="kb-new"
              placeholder={t.kbNewExample}
              value={newPath}
              onInput={(e) => setNewPath(e.currentTarget.value)}
            />
            <button type="submit">{t.kbCreate}</button>
          </form>
        </section>
        {entry && (
          <section class="card stack" aria-labelledby="kb-item">
            <h2 id="kb-item" translate={false}>
              {entry.path}
            </h2>
            <label for="kb-content">{t.kbContent}</label>
            <textarea id="kb-content" rows={16} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
            <div class="row">
              <button type="button" onClick={save}>
                {t.save}
              </button>
              {!confirmDelete ? (
                <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                  {t.delete}
                </button>
              ) : (
                <>
                  <button type="button" class="danger" onClick={remove}>
                    {fill(t.labelValue, { label: t.deleteConfirm, value: entry.path })}
                  </button>
                  <button type="button" onClick={() => setConfirmDelete(false)}>
                    {t.cancel}
                  </button>
                </>
              )}
            </div>
          </section>
        )}
      </div>
    </div>
  );
}

function Tree({ nodes, onOpen, empty }: { nodes: Node[]; onOpen: (path: string) => void; empty: string }) {
  if (nodes.length === 0) return <p>{empty}</p>;
  return (
    <ul class="tree">
      {nodes.map((n) =>
        n.kind === "category" ? (
          <li key={n.path}>
            <details open>
              <summary translate={false}>{n.name}</summary>
              <Tree nodes={n.children ?? []} onOpen={onOpen} empty="" />
            </details>
          </li>
        ) : (
          <li key={n.path}>
            <button type="button" class="link" onClick={() => onOpen(n.path)} translate={false}>
              {n.name}
            </button>
          </li>
        ),
      )}
    </ul>
  );
}
