/**
 * Settings: the daemon's setting definitions as groups a person looks for (model sources, agent, memory,
 * web & access, system, then each plugin on a card of its own), with a search over every label,
 * description and key in both languages and a link to each group. Each card saves on its own, all or
 * nothing (settings-form.tsx). The LLM sources have a card each ("test connection"; values set by
 * environment variables read-only) and a form to add one.
 */
import { useMemo, useState } from "preact/hooks";
import { post } from "../api";
import { SettingField } from "../components/setting-field";
import { SettingsForm, useSaver } from "../components/settings-form";
import { ErrorLine, Loading } from "../components/status";
import { useApi } from "../components/use-api";
import { errorText } from "../error-text";
import { fill, type Messages, useT } from "../i18n";
import {
  GROUPS,
  type GroupId,
  matchesQuery,
  type SettingCard,
  SOURCE_TEMPLATE,
  settingCards,
  sourceNames,
} from "../settings-model";
import type { ConfigDefInfo, ConfigEntry, LlmTestResult, SettingsAnswer } from "../types";

const SOURCE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const GROUP_TITLES: Record<GroupId, keyof Messages> = {
  models: "groupModels",
  agent: "groupAgent",
  memory: "groupMemory",
  access: "groupAccess",
  system: "groupSystem",
  plugins: "groupPlugins",
};

export function SettingsTab() {
  const t = useT();
  const answer = useApi<SettingsAnswer>("/api/v1/settings");
  const [query, setQuery] = useState("");
  const data = answer.data;
  const entries = useMemo(() => new Map((data?.settings ?? []).map((e) => [e.key, e])), [data]);
  const cards = useMemo(() => settingCards(data?.defs ?? []), [data]);
  const templates = useMemo(() => (data?.defs ?? []).filter((d) => d.key.startsWith(SOURCE_TEMPLATE)), [data]);
  const sources = useMemo(() => sourceNames(data?.settings.map((e) => e.key) ?? []), [data]);

  const sourceShown = (name: string) =>
    name.toLowerCase().includes(query.trim().toLowerCase()) ||
    templates.some((d) => matchesQuery(d, query, instanceKey(d.key, name)));
  const cardShown = (card: SettingCard) => card.defs.some((d) => matchesQuery(d, query));
  const newSourceShown = query.trim() === "" || templates.some((d) => matchesQuery(d, query));
  const groupShown = (group: GroupId) =>
    cards.some((c) => c.group === group && cardShown(c)) ||
    (group === "models" && (newSourceShown || sources.some(sourceShown)));
  const shownGroups = GROUPS.filter(groupShown);

  return (
    <div class="stack">
      <h1>{t.tabSettings}</h1>
      <ErrorLine message={answer.error} />
      {!data ? (
        <Loading />
      ) : (
        <>
          <div class="settings-tools">
            <div class="field">
              <label for="settings-search">{t.settingsSearch}</label>
              <input
                id="settings-search"
                type="search"
                autocomplete="off"
                value={query}
                aria-describedby="settings-search-hint"
                onInput={(e) => setQuery(e.currentTarget.value)}
              />
              <small id="settings-search-hint" class="hint">
                {t.settingsSearchHint}
              </small>
            </div>
            <nav aria-label={t.settingGroups}>
              <ul class="group-links">
                {shownGroups.map((group) => (
                  <li key={group}>
                    <button type="button" class="link-button" onClick={() => jumpTo(group)}>
                      {t[GROUP_TITLES[group]] as string}
                    </button>
                  </li>
                ))}
              </ul>
            </nav>
          </div>
          <p role="status" class="notice">
            {shownGroups.length === 0 ? fill(t.settingsNoMatch, { query }) : ""}
          </p>
          {GROUPS.map((group) => (
            <section key={group} class="stack" aria-labelledby={`group-${group}`} hidden={!shownGroups.includes(group)}>
              <h2 id={`group-${group}`} tabIndex={-1}>
                {t[GROUP_TITLES[group]] as string}
              </h2>
              {group === "models" &&
                sources.map((name) => (
                  <SourceCard
                    key={name}
                    name={name}
                    templates={templates}
                    entries={entries}
                    query={query}
                    hidden={!sourceShown(name)}
                    onSaved={answer.reload}
                  />
                ))}
              {group === "models" && (
                <NewSource templates={templates} hidden={!newSourceShown} onSaved={answer.reload} />
              )}
              {cards
                .filter((c) => c.group === group)
                .map((card) => (
                  <SettingsForm
                    key={card.id}
                    title={cardTitle(t, card)}
                    defs={card.defs}
                    entries={entries}
                    query={query}
                    hidden={!cardShown(card)}
                    idPrefix={card.id}
                    labelledBy={card.plugin || group === "models" ? undefined : `group-${group}`}
                    onSaved={answer.reload}
                  />
                ))}
            </section>
          ))}
        </>
      )}
    </div>
  );
}

/** Brings a group into view and moves the focus to its heading, as a link to an anchor would. */
function jumpTo(group: GroupId): void {
  const heading = document.getElementById(`group-${group}`);
  heading?.scrollIntoView({ block: "start" });
  heading?.focus({ preventScroll: true });
}

function cardTitle(t: Messages, card: SettingCard): string {
  if (card.plugin) return fill(t.pluginCard, { name: card.plugin });
  return card.group === "models" ? t.everyLlmCall : (t[GROUP_TITLES[card.group]] as string);
}

function instanceKey(templateKey: string, name: string): string {
  return templateKey.replace("*", name);
}

function SourceCard(props: {
  name: string;
  templates: ConfigDefInfo[];
  entries: Map<string, ConfigEntry>;
  query: string;
  hidden: boolean;
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
      setError(errorText(t, err));
    }
  };
  const defs = props.templates.map((d) => ({ ...d, key: instanceKey(d.key, props.name) }));
  const variables = defs.map((d) => props.entries.get(d.key)?.env).filter((v): v is string => Boolean(v));
  return (
    <div class="stack" hidden={props.hidden}>
      <SettingsForm
        title={fill(t.sourceCard, { name: props.name })}
        defs={defs}
        entries={props.entries}
        query={props.name.toLowerCase().includes(props.query.trim().toLowerCase()) ? "" : props.query}
        hidden={false}
        idPrefix={`src-${props.name}`}
        onSaved={props.onSaved}
        note={variables.length > 0 ? fill(t.envSource, { names: variables.join(t.listComma) }) : undefined}
      />
      <div class="row">
        <button type="button" onClick={test}>
          {fill(t.testSource, { name: props.name })}
        </button>
        <span role="status">
          {result &&
            (result.ok
              ? fill(t.testWorked, { ms: result.latencyMs, reply: result.reply ?? "" })
              : fill(t.labelValue, { label: t.testFailed, value: result.error ?? "" }))}
        </span>
      </div>
      <ErrorLine message={error} />
    </div>
  );
}

function NewSource(props: { templates: ConfigDefInfo[]; hidden: boolean; onSaved: () => Promise<void> }) {
  const t = useT();
  const { errors, failure, notice, save } = useSaver(props.onSaved);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | undefined>();
  const [draft, setDraft] = useState<Record<string, string>>({});
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!SOURCE_NAME.test(name)) {
      setNameError(t.sourceNameRule);
      return;
    }
    const changes = Object.fromEntries(
      props.templates
        .map((d): [string, string] => [instanceKey(d.key, name), draft[d.key] ?? ""])
        .filter(([, v]) => v !== ""),
    );
    // Nothing but defaults would store nothing, and no source would appear.
    setNameError(Object.keys(changes).length === 0 ? t.sourceNeedsValue : undefined);
    if (Object.keys(changes).length === 0) return;
    if (await save(changes, t.saved)) {
      setDraft({});
      setName("");
    }
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="new-source-title" hidden={props.hidden}>
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
      {props.templates.map((def) => (
        <SettingField
          key={def.key}
          def={{ ...def, key: instanceKey(def.key, name || "…") }}
          id={`new-${def.key.slice(SOURCE_TEMPLATE.length)}`}
          value={draft[def.key] ?? (def.secret ? "" : def.default)}
          effective={def.secret ? "" : def.default}
          resetPending={false}
          error={errors[instanceKey(def.key, name)]}
          onChange={(v) => setDraft({ ...draft, [def.key]: v })}
          onReset={() => setDraft({ ...draft, [def.key]: def.default })}
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
