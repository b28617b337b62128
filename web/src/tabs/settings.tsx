/**
 * Settings: a form generated from the daemon's setting definitions, one section per category; Save sends
 * only what changed, as one request that the daemon stores whole or not at all, and shows each refusal
 * (the server's message) under its field, so a bad field never leaves the form half-saved. LLM
 * sources have their own section: the configured ones with "test connection", and a form to add one from
 * the `core.llm.sources.*` templates. Secrets arrive masked and are sent back only when retyped.
 */
import { useMemo, useState } from "preact/hooks";
import { ApiError, api, post } from "../api";
import { SettingField } from "../components/setting-field";
import { ErrorLine, Loading } from "../components/status";
import { useApi } from "../components/use-api";
import { useT } from "../i18n";
import type { ConfigDefInfo, LlmTestResult, SettingsAnswer } from "../types";

const SOURCE_PREFIX = "core.llm.sources.";
const TEMPLATE = `${SOURCE_PREFIX}*.`;
const SOURCE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function SettingsTab() {
  const t = useT();
  const answer = useApi<SettingsAnswer>("/api/v1/settings");
  const data = answer.data;
  const values = useMemo(() => new Map((data?.settings ?? []).map((e) => [e.key, e.value])), [data]);
  const groups = useMemo(() => groupDefs(data?.defs ?? []), [data]);
  const templates = useMemo(() => (data?.defs ?? []).filter((d) => d.key.startsWith(TEMPLATE)), [data]);
  const sources = useMemo(() => sourceNames(data?.settings.map((e) => e.key) ?? []), [data]);

  return (
    <div class="stack">
      <h1>{t.tabSettings}</h1>
      <ErrorLine message={answer.error} />
      {!data ? (
        <Loading />
      ) : (
        <>
          <section class="card stack" aria-labelledby="set-llm">
            <h2 id="set-llm">{t.llmSources}</h2>
            {sources.map((name) => (
              <SourceForm key={name} name={name} templates={templates} values={values} onSaved={answer.reload} />
            ))}
            <NewSource templates={templates} onSaved={answer.reload} />
          </section>
          {groups.map(([category, defs], i) => (
            <SettingsForm
              key={category}
              title={category}
              defs={defs}
              values={values}
              onSaved={answer.reload}
              // By position: a category is any text a plugin chose, and an id with a space would break
              // aria-labelledby (it takes a list of ids).
              idPrefix={`set-${i}`}
            />
          ))}
        </>
      )}
    </div>
  );
}

/**
 * Saves the changed fields of one form in one request: all are stored or none. The server's refusals come
 * back per key (shown under each field); any other failure shows once for the form.
 */
function useSaver(onSaved: () => Promise<void>) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [notice, setNotice] = useState("");
  const save = async (changes: Array<[string, string]>, done: string): Promise<boolean> => {
    setErrors({});
    setFailure(null);
    setNotice("");
    if (changes.length === 0) return true;
    try {
      await api("PUT", "/api/v1/settings", { changes: Object.fromEntries(changes) });
    } catch (err) {
      const refused = err instanceof ApiError ? err.refused : {};
      setErrors(refused);
      setFailure((err as Error).message);
      return false;
    }
    setNotice(done);
    await onSaved();
    return true;
  };
  return { errors, failure, notice, save };
}

function SettingsForm(props: {
  title: string;
  defs: ConfigDefInfo[];
  values: Map<string, string>;
  onSaved: () => Promise<void>;
  idPrefix: string;
}) {
  const t = useT();
  const { errors, failure, notice, save } = useSaver(props.onSaved);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const current = (d: ConfigDefInfo) => draft[d.key] ?? props.values.get(d.key) ?? d.default;
  const submit = async (event: Event) => {
    event.preventDefault();
    const changes = Object.entries(draft).filter(([key, v]) => v !== (props.values.get(key) ?? ""));
    if (await save(changes, t.saved)) setDraft({});
  };
  const headingId = `${props.idPrefix}-title`;
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby={headingId}>
      <h2 id={headingId}>{props.title}</h2>
      {props.defs.map((def) => (
        <SettingField
          key={def.key}
          def={def}
          id={`f-${def.key.replace(/[^A-Za-z0-9_-]/g, "-")}`}
          value={current(def)}
          error={errors[def.key]}
          onChange={(v) => setDraft({ ...draft, [def.key]: v })}
        />
      ))}
      <ErrorLine message={failure} />
      <div class="row">
        <button type="submit">{`${t.save}: ${props.title}`}</button>
        <span role="status">{notice}</span>
      </div>
    </form>
  );
}

function SourceForm(props: {
  name: string;
  templates: ConfigDefInfo[];
  values: Map<string, string>;
  onSaved: () => Promise<void>;
}) {
  const t = useT();
  const [result, setResult] = useState<LlmTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const test = async () => {
    setResult(null);
    setError(null);
    try {
      setResult(await post<LlmTestResult>("/api/v1/settings/llm/test", { source: props.name }));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const defs = props.templates.map((d) => ({ ...d, displayName: fieldName(d), key: d.key.replace("*", props.name) }));
  return (
    <div class="stack">
      <SettingsForm
        title={`${t.source}: ${props.name}`}
        defs={defs}
        values={props.values}
        onSaved={props.onSaved}
        idPrefix={`src-${props.name}`}
      />
      <div class="row">
        <button type="button" onClick={test}>{`${t.testConnection}: ${props.name}`}</button>
        <span role="status">
          {result &&
            (result.ok
              ? `${t.testOk} (${result.latencyMs} ms): ${result.reply ?? ""}`
              : `${t.testFailed}: ${result.error ?? ""}`)}
        </span>
      </div>
      <ErrorLine message={error} />
    </div>
  );
}

function NewSource({ templates, onSaved }: { templates: ConfigDefInfo[]; onSaved: () => Promise<void> }) {
  const t = useT();
  const { errors, failure, notice, save } = useSaver(onSaved);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | undefined>();
  const [draft, setDraft] = useState<Record<string, string>>({});
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!SOURCE_NAME.test(name)) {
      setNameError(t.sourceNameRule);
      return;
    }
    setNameError(undefined);
    const changes = templates
      .map((d): [string, string] => [d.key.replace("*", name), draft[d.key] ?? ""])
      .filter(([, v]) => v !== "");
    if (await save(changes, t.saved)) {
      setDraft({});
      setName("");
    }
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="new-source-title">
      <h3 id="new-source-title">{t.addSource}</h3>
      <div class="field">
        <label for="new-source-name">{t.sourceName}</label>
        <input
          id="new-source-name"
          value={name}
          required
          aria-invalid={nameError ? true : undefined}
          aria-describedby={nameError ? "new-source-name-error" : undefined}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        {nameError && (
          <small id="new-source-name-error" class="error" role="alert">
            {nameError}
          </small>
        )}
      </div>
      {templates.map((def) => (
        <SettingField
          key={def.key}
          def={{ ...def, displayName: fieldName(def), key: def.key.replace("*", name || "…") }}
          id={`new-${def.key.slice(TEMPLATE.length)}`}
          value={draft[def.key] ?? def.default}
          error={errors[def.key.replace("*", name)]}
          onChange={(v) => setDraft({ ...draft, [def.key]: v })}
        />
      ))}
      <ErrorLine message={failure} />
      <div class="row">
        <button type="submit">{t.addSource}</button>
        <span role="status">{notice}</span>
      </div>
    </form>
  );
}

/** A source's field is labelled by its own name (base_url, model, …) unless the definition names it. */
function fieldName(def: ConfigDefInfo): string {
  return def.displayName || def.key.slice(TEMPLATE.length);
}

/** Definitions that are not templates, by category (in the order the daemon lists them). */
function groupDefs(defs: ConfigDefInfo[]): Array<[string, ConfigDefInfo[]]> {
  const groups = new Map<string, ConfigDefInfo[]>();
  for (const def of defs) {
    if (def.key.includes("*")) continue;
    const category = def.category || def.key.split(".").slice(0, 2).join(".");
    groups.set(category, [...(groups.get(category) ?? []), def]);
  }
  return [...groups];
}

/** The names of the sources that have at least one stored key. */
function sourceNames(keys: string[]): string[] {
  const names = new Set<string>();
  for (const key of keys) {
    if (!key.startsWith(SOURCE_PREFIX)) continue;
    const name = key.slice(SOURCE_PREFIX.length).split(".")[0];
    if (name && name !== "*") names.add(name);
  }
  return [...names].sort();
}
