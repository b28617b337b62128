/**
 * The graph's facts as a list the user can correct: each row has Edit (an inline form with the current
 * subject, relation and object) and Delete, and neither writes before a second, explicit confirmation that
 * repeats the fact. A saved edit replaces the fact everywhere memory keeps it (the server does it in one
 * step: the old fact stays if the new one cannot be written); the list then reloads, because the corrected
 * fact has a new id. A fact that changed meanwhile is refused with the server's message.
 */
import { useState } from "preact/hooks";
import { api } from "../api";
import { errorText } from "../error-text";
import { fill, useT } from "../i18n";
import { ShowMore, useShown } from "./show-more";
import { ErrorLine } from "./status";

export interface Fact {
  id: number;
  subject: string;
  relation: string;
  object: string;
  status: string;
}

type Triple = Pick<Fact, "subject" | "relation" | "object">;

const FIELDS = ["subject", "relation", "object"] as const;

const factText = (f: Triple) => `${f.subject} — ${f.relation} → ${f.object}`;

export function FactList({ facts, onChanged }: { facts: Fact[]; onChanged: () => Promise<void> }) {
  const t = useT();
  const [shown, more] = useShown();
  const [notice, setNotice] = useState("");
  const changed = async (message: string) => {
    setNotice(message);
    await onChanged();
  };
  return (
    <div class="stack">
      <p class="hint">{t.factNote}</p>
      <p role="status" class="notice">
        {notice}
      </p>
      <ul class="results facts-list" aria-label={t.memFacts}>
        {facts.length === 0 && <li>{t.noResults}</li>}
        {facts.slice(0, shown).map((f) => (
          <FactRow key={f.id} fact={f} onChanged={changed} />
        ))}
      </ul>
      <ShowMore shown={shown} total={facts.length} onMore={more} />
    </div>
  );
}

type Mode = "view" | "edit" | "confirmEdit" | "confirmDelete";

function FactRow({ fact, onChanged }: { fact: Fact; onChanged: (notice: string) => Promise<void> }) {
  const t = useT();
  const [mode, setMode] = useState<Mode>("view");
  const [draft, setDraft] = useState<Triple>(fact);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const text = factText(fact);
  const path = `/api/v1/memory/facts/${fact.id}`;
  const send = async (method: "PUT" | "DELETE", done: string) => {
    setPending(true);
    setError(null);
    try {
      await api(method, path, method === "PUT" ? changedFields(fact, draft) : undefined);
      await onChanged(done);
    } catch (err) {
      setError(errorText(t, err));
      // Back to the form, so the user can fix the value the server refused.
      setMode(method === "PUT" ? "edit" : "view");
    } finally {
      setPending(false);
    }
  };
  const cancel = () => {
    setMode("view");
    setDraft(fact);
    setError(null);
  };
  const review = (event: Event) => {
    event.preventDefault();
    setError(null);
    setMode("confirmEdit");
  };
  const unchanged = FIELDS.every((f) => draft[f].trim() === fact[f]);
  return (
    <li>
      <span class="plain" translate={false}>
        <strong>{fact.subject}</strong> — {fact.relation} → <strong>{fact.object}</strong>
      </span>
      {fact.status !== "active" && (
        <small class="hint" translate={false}>
          {" "}
          ({fact.status})
        </small>
      )}
      {mode === "view" && (
        <span class="row fact-actions">
          <button
            type="button"
            aria-label={fill(t.labelValue, { label: t.edit, value: text })}
            onClick={() => setMode("edit")}
          >
            {t.edit}
          </button>
          <button
            type="button"
            class="danger"
            aria-label={fill(t.labelValue, { label: t.delete, value: text })}
            onClick={() => setMode("confirmDelete")}
          >
            {t.delete}
          </button>
        </span>
      )}
      {mode === "edit" && (
        <form
          class="stack fact-form"
          aria-label={fill(t.labelValue, { label: t.factEdit, value: text })}
          onSubmit={review}
        >
          {FIELDS.map((f) => (
            <div class="field" key={f}>
              <label for={`fact-${fact.id}-${f}`}>{t[FIELD_LABEL[f]]}</label>
              <input
                id={`fact-${fact.id}-${f}`}
                value={draft[f]}
                required
                maxLength={512}
                onInput={(e) => setDraft({ ...draft, [f]: e.currentTarget.value })}
              />
            </div>
          ))}
          <div class="row">
            <button type="submit" disabled={unchanged}>
              {t.save}
            </button>
            <button type="button" onClick={cancel}>
              {t.cancel}
            </button>
          </div>
        </form>
      )}
      {mode === "confirmEdit" && (
        <div class="stack fact-confirm">
          <p>{t.factReplaceAsk}</p>
          <p class="plain">
            <del>{text}</del>
            <br />
            <ins>{factText(trimmed(draft))}</ins>
          </p>
          <div class="row">
            <button type="button" class="danger" disabled={pending} onClick={() => send("PUT", t.factSaved)}>
              {fill(t.labelValue, { label: t.factReplaceConfirm, value: text })}
            </button>
            <button type="button" onClick={() => setMode("edit")}>
              {t.cancel}
            </button>
          </div>
        </div>
      )}
      {mode === "confirmDelete" && (
        <div class="stack fact-confirm">
          <p>{t.factDeleteAsk}</p>
          <div class="row">
            <button type="button" class="danger" disabled={pending} onClick={() => send("DELETE", t.factDeleted)}>
              {fill(t.labelValue, { label: t.deleteConfirm, value: text })}
            </button>
            <button type="button" onClick={cancel}>
              {t.cancel}
            </button>
          </div>
        </div>
      )}
      <ErrorLine message={error} />
    </li>
  );
}

const FIELD_LABEL = { subject: "factSubject", relation: "factRelation", object: "factObject" } as const;

function trimmed(t: Triple): Triple {
  return { subject: t.subject.trim(), relation: t.relation.trim(), object: t.object.trim() };
}

/** Only the fields the user changed: the server keeps the others as they are. */
function changedFields(fact: Fact, draft: Triple): Partial<Triple> {
  const next = trimmed(draft);
  return Object.fromEntries(FIELDS.filter((f) => next[f] !== fact[f]).map((f) => [f, next[f]]));
}
