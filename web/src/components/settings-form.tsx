/**
 * A card of settings that saves what changed in it as one request, which the daemon stores whole or not at
 * all, and shows each refusal (the server's message) under its field, so a bad field never leaves the
 * card half-saved. The Settings tab is made of these; the Plugins tab shows each plugin's own on its card.
 */
import { useState } from "preact/hooks";
import { ApiError, api } from "../api";
import { errorText, refusalText } from "../error-text";
import { fill, useT } from "../i18n";
import { matchesQuery } from "../settings-model";
import type { ConfigDefInfo, ConfigEntry } from "../types";
import { SettingField } from "./setting-field";
import { ErrorLine } from "./status";

/** A card's unsaved edits: a value, or null for "back to the default" (sent as null, which deletes the stored one). */
export type Draft = Record<string, string | null>;

/**
 * Saves a card's changes in one request: all are stored or none. The server's refusals come back per key
 * (shown under each field); any other failure shows once for the card.
 */
export function useSaver(onSaved: () => Promise<void>) {
  const t = useT();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [notice, setNotice] = useState("");
  const save = async (changes: Draft, done: string): Promise<boolean> => {
    setErrors({});
    setFailure(null);
    setNotice("");
    if (Object.keys(changes).length === 0) return true;
    try {
      await api("PUT", "/api/v1/settings", { changes });
    } catch (err) {
      if (err instanceof ApiError) {
        const { refused, reasons } = err;
        setErrors(
          Object.fromEntries(Object.entries(refused).map(([key, why]) => [key, refusalText(t, why, reasons[key])])),
        );
      }
      setFailure(errorText(t, err));
      return false;
    }
    setNotice(done);
    await onSaved();
    return true;
  };
  return { errors, failure, notice, save };
}

export function SettingsForm(props: {
  title: string;
  defs: ConfigDefInfo[];
  entries: Map<string, ConfigEntry>;
  query: string;
  hidden: boolean;
  idPrefix: string;
  onSaved: () => Promise<void>;
  /** Above the fields: what the whole card is about (e.g. a source set by the environment). */
  note?: string;
  /** The id of a heading that already names the card (its group's), instead of a heading of its own. */
  labelledBy?: string;
}) {
  const t = useT();
  const { errors, failure, notice, save } = useSaver(props.onSaved);
  const [draft, setDraft] = useState<Draft>({});
  const effective = (d: ConfigDefInfo) => props.entries.get(d.key)?.value ?? d.default;
  const shown = (d: ConfigDefInfo) => {
    if (d.key in draft) return draft[d.key] ?? (d.secret ? "" : d.default);
    return d.secret ? "" : effective(d);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    // A secret left empty is kept; any other field goes only when it differs from what is saved.
    const changes = Object.fromEntries(
      Object.entries(draft).filter(([key, v]) => {
        const def = props.defs.find((d) => d.key === key);
        return v === null || (def?.secret ? v !== "" : v !== (props.entries.get(key)?.value ?? def?.default));
      }),
    );
    // What was typed while the save ran stays: only the fields that went, as they went, leave the draft.
    if (await save(changes, t.saved)) {
      setDraft((d) =>
        Object.fromEntries(Object.entries(d).filter(([k, v]) => !Object.hasOwn(changes, k) || changes[k] !== v)),
      );
    }
  };
  const headingId = props.labelledBy ?? `${props.idPrefix}-title`;
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby={headingId} hidden={props.hidden}>
      {!props.labelledBy && <h3 id={headingId}>{props.title}</h3>}
      {props.note && <p class="hint">{props.note}</p>}
      {props.defs.map((def, i) => (
        <div key={def.key} hidden={!matchesQuery(def, props.query)}>
          <SettingField
            def={def}
            // By position: keys may differ only in "." and "-", which an id would not keep apart.
            id={`${props.idPrefix}-f${i}`}
            value={shown(def)}
            effective={props.entries.get(def.key)?.value ?? (def.secret ? "" : def.default)}
            env={props.entries.get(def.key)?.env}
            resetPending={draft[def.key] === null}
            error={errors[def.key]}
            onChange={(v) => setDraft({ ...draft, [def.key]: v })}
            onReset={() => setDraft({ ...draft, [def.key]: null })}
          />
        </div>
      ))}
      <ErrorLine message={failure} />
      <div class="row">
        <button type="submit">{fill(t.saveCard, { title: props.title })}</button>
        <span role="status">{notice}</span>
      </div>
    </form>
  );
}
