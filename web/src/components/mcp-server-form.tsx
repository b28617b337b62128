/**
 * The form that adds or edits one MCP server: its name, how it is reached — a program (command, arguments
 * one per line, working folder, environment variables) or a URL (and HTTP headers) — with variables and
 * headers as rows of name and value. A value already saved is a secret the page never gets: its row shows
 * the mask the daemon lists, and keeps the stored value unless a new one is typed.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { fill, type Messages, useT } from "../i18n";
import { type FormProblem, formProblem, type Row, type ServerForm } from "../mcp-config";
import { ErrorLine } from "./status";

export function McpServerFormView(props: {
  initial: ServerForm;
  /** Editing a saved server: its name stays (a new name would leave its saved secrets behind). */
  editing: boolean;
  /** The other servers' names. */
  taken: string[];
  busy: boolean;
  /** Saves the server; false when the daemon refused it (the panel shows why). */
  onSave: (form: ServerForm) => Promise<boolean>;
  onCancel: () => void;
}) {
  const t = useT();
  const [form, setForm] = useState(props.initial);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const set = (change: Partial<ServerForm>) => setForm({ ...form, ...change });
  const text = (key: keyof ServerForm) => (e: Event) => set({ [key]: (e.currentTarget as HTMLInputElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    const found = formProblem(form, props.taken);
    setProblem(found ?? null);
    if (!found) await props.onSave(form);
  };
  const title = props.editing ? fill(t.mcpEditTitle, { name: props.initial.name }) : t.mcpAddTitle;
  return (
    <form class="card stack mcp-form" onSubmit={submit} aria-labelledby="mcp-form-title">
      <h3 id="mcp-form-title">{title}</h3>
      <Field id="mcp-name" label={t.mcpName} hint={t.mcpNameHint}>
        <input id="mcp-name" value={form.name} readOnly={props.editing} onInput={text("name")} translate={false} />
      </Field>
      <fieldset class="row">
        <legend>{t.mcpTransport}</legend>
        {(["program", "url"] as const).map((transport) => (
          <label key={transport}>
            <input
              type="radio"
              name="mcp-transport"
              checked={form.transport === transport}
              onChange={() => set({ transport })}
            />
            {transport === "program" ? t.mcpProgram : t.mcpUrlTransport}
          </label>
        ))}
      </fieldset>
      {form.transport === "program" ? (
        <>
          <Field id="mcp-command" label={t.mcpCommand}>
            <input id="mcp-command" value={form.command} onInput={text("command")} translate={false} />
          </Field>
          <Field id="mcp-args" label={t.mcpArgs} hint={t.mcpArgsHint}>
            <textarea id="mcp-args" rows={3} value={form.args} onInput={text("args")} />
          </Field>
          <Field id="mcp-cwd" label={t.mcpCwd} hint={t.mcpCwdHint}>
            <input id="mcp-cwd" value={form.cwd} onInput={text("cwd")} translate={false} />
          </Field>
          <Rows id="mcp-env" legend={t.mcpEnv} rows={form.env} onChange={(env) => set({ env })} t={t} />
        </>
      ) : (
        <>
          <Field id="mcp-url" label={t.mcpUrl}>
            <input id="mcp-url" type="url" value={form.url} onInput={text("url")} translate={false} />
          </Field>
          <Rows
            id="mcp-headers"
            legend={t.mcpHeaders}
            rows={form.headers}
            onChange={(headers) => set({ headers })}
            t={t}
          />
        </>
      )}
      <ErrorLine message={problem && t[`mcpProblem_${problem}`]} />
      <div class="row">
        <button type="submit" disabled={props.busy}>
          {t.mcpSaveServer}
        </button>
        <button type="button" onClick={props.onCancel}>
          {t.cancel}
        </button>
      </div>
    </form>
  );
}

function Field(props: { id: string; label: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && <small class="hint">{props.hint}</small>}
    </div>
  );
}

/** Name and value rows (environment variables, headers); values are secrets, typed as passwords. */
function Rows(props: { id: string; legend: string; rows: Row[]; onChange: (rows: Row[]) => void; t: Messages }) {
  const { id, rows, onChange, t } = props;
  const change = (i: number, row: Partial<Row>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...row } : r)));
  return (
    <fieldset class="stack">
      <legend>{props.legend}</legend>
      {rows.length > 0 && <small class="hint">{t.mcpSecretHint}</small>}
      {rows.map((row, i) => (
        // Keyed by place: a row has no identity but that (its name is what is being typed).
        <div class="row" key={i}>
          <input
            aria-label={fill(t.mcpRowName, { n: i + 1 })}
            value={row.key}
            onInput={(e) => change(i, { key: e.currentTarget.value })}
            translate={false}
          />
          <input
            id={`${id}-value-${i}`}
            type="password"
            autocomplete="off"
            aria-label={fill(t.mcpRowValue, { n: i + 1 })}
            value={row.value}
            placeholder={row.stored}
            onInput={(e) => change(i, { value: e.currentTarget.value })}
            translate={false}
          />
          <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            {fill(t.mcpRemoveRow, { n: i + 1 })}
          </button>
        </div>
      ))}
      <button type="button" class="align-start" onClick={() => onChange([...rows, { key: "", value: "" }])}>
        {t.mcpAddRow}
      </button>
    </fieldset>
  );
}
