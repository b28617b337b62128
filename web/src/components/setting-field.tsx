/**
 * One setting as a person reads it: its label and description in the UI's language with the key small
 * beside it, a control chosen by its type (a switch, a list, an amount with its unit, a text box), a
 * "changed" marker with a reset, and the server's refusal tied to it for screen readers. A secret is
 * replace-only (its value never comes back: the field only says whether one is set), and a value that an
 * environment variable sets is read-only with the variable named.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { fill, type Messages, optionalMessage, useT } from "../i18n";
import {
  type Amount,
  BYTE_UNITS,
  DURATION_UNITS,
  defText,
  joinBytes,
  joinDuration,
  splitBytes,
  splitDuration,
} from "../settings-model";
import type { ConfigDefInfo } from "../types";

interface Props {
  def: ConfigDefInfo;
  id: string;
  /** What the control shows: the draft, else the saved value (a secret: only what is being typed). */
  value: string;
  /** The value in effect, as the server lists it ("****" for a secret that is set). */
  effective: string;
  /** The environment variable that sets this value, if one does. */
  env?: string;
  /** A reset to the default waits for Save. */
  resetPending: boolean;
  error?: string;
  onChange: (value: string) => void;
  onReset: () => void;
}

export function SettingField(props: Props) {
  const t = useT();
  const { def, id, env, error } = props;
  const { label, description } = defText(def, t.lang);
  const secret = def.secret || def.type === "password";
  const changed = !env && !props.resetPending && (secret ? props.effective !== "" : props.effective !== def.default);
  const notes = [`${id}-help`, env ? `${id}-env` : "", secret ? `${id}-secret` : "", error ? `${id}-error` : ""];
  const common = {
    id,
    disabled: Boolean(env),
    "aria-describedby": notes.filter(Boolean).join(" "),
    "aria-invalid": error ? true : undefined,
  };
  return (
    <div class="field">
      <div class="field-head">
        {/* The label and description come with the definition, translated there (not from the UI's tables). */}
        <label for={id} translate={false}>
          {label}
        </label>
        <code class="key" translate={false}>
          {def.key}
        </code>
        {changed && !secret && (
          <span class="badge badge-muted">{fill(t.changedFromDefault, { value: def.default || t.emptyDefault })}</span>
        )}
      </div>
      <Control {...props} secret={secret} label={label} common={common} t={t} />
      <small id={`${id}-help`} class="hint" translate={false}>
        {description}
      </small>
      {env && (
        <small id={`${id}-env`} class="hint">
          {fill(t.fromEnv, { name: env })}
        </small>
      )}
      {secret && !env && (
        <small id={`${id}-secret`} class="hint">
          {props.resetPending ? t.resetPending : props.effective !== "" ? t.secretSet : t.secretUnset}
        </small>
      )}
      {!secret && props.resetPending && <small class="hint">{t.resetPending}</small>}
      {changed && (
        <button type="button" class="link-button" onClick={props.onReset}>
          {fill(t.labelValue, { label: secret ? t.secretRemove : t.resetToDefault, value: label })}
        </button>
      )}
      {error && (
        <small id={`${id}-error`} class="error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

interface ControlProps extends Props {
  secret: boolean;
  label: string;
  common: Record<string, unknown>;
  t: Messages;
}

function Control({ def, value, onChange, secret, label, common, t }: ControlProps) {
  const text = (e: Event) => onChange((e.currentTarget as HTMLInputElement).value);
  if (def.type === "bool") {
    const on = value === "true";
    return (
      <label class="switch">
        <input
          {...common}
          type="checkbox"
          role="switch"
          aria-checked={on}
          checked={on}
          onChange={(e) => onChange(e.currentTarget.checked ? "true" : "false")}
        />
        <span aria-hidden="true">{on ? t.switchOn : t.switchOff}</span>
      </label>
    );
  }
  if (def.type === "select" && def.options) {
    return (
      <select {...common} value={value} onChange={text}>
        {!def.options.includes(value) && (
          <option value={value} translate={false}>
            {value}
          </option>
        )}
        {def.options.map((o) => (
          <option key={o} value={o} translate={false}>
            {o}
          </option>
        ))}
      </select>
    );
  }
  if (def.type === "text" || def.type === "json")
    return <textarea {...common} rows={def.type === "json" ? 8 : 4} value={value} onInput={text} spellcheck={false} />;
  if (secret) {
    return (
      <input
        {...common}
        type="password"
        autocomplete="new-password"
        placeholder={common.disabled ? undefined : t.secretNew}
        value={value}
        onInput={text}
      />
    );
  }
  const editor = def.type === "duration" ? DURATIONS : def.unit === "bytes" ? SIZES : undefined;
  if (editor) {
    return <AmountInput common={common} label={label} t={t} editor={editor} value={value} onChange={onChange} />;
  }
  const numeric = def.type === "int" || def.type === "float";
  const input = (
    <input
      {...common}
      type="text"
      inputMode={def.type === "url" ? "url" : numeric ? "decimal" : undefined}
      autocomplete="off"
      placeholder={def.placeholder}
      translate={def.placeholder ? false : undefined}
      value={value}
      onInput={text}
    />
  );
  if (!def.unit) return input;
  return (
    <span class="amount">
      {input}
      <span class="unit">{unitText(t, def.unit)}</span>
    </span>
  );
}

/** How a value with units is taken apart into an amount and a unit, and put together again. */
interface AmountEditor {
  units: readonly string[];
  split: (value: string) => Amount<string> | null;
  join: (amount: Amount<string>) => string;
}

const DURATIONS = { units: DURATION_UNITS, split: splitDuration, join: joinDuration } as AmountEditor;
const SIZES = { units: BYTE_UNITS, split: splitBytes, join: joinBytes } as AmountEditor;

/**
 * A number and a list of its units; a change of either is written back in the config center's syntax.
 * What the user types stays as typed (its own state): only a value from outside (a reset, a reload) is
 * taken apart again, so "605" seconds stays 605 seconds and "1.5" hours can be typed at all.
 */
function AmountInput(props: {
  common: Record<string, unknown>;
  label: string;
  t: Messages;
  editor: AmountEditor;
  value: string;
  onChange: (value: string) => void;
}) {
  const { editor, value, onChange, t } = props;
  // Every value this editor wrote since the last one from outside: a render that still carries an earlier
  // one of them (the page re-rendered between two keys) is not a value from outside.
  const emitted = useRef(new Set([value]));
  const [shown, setShown] = useState(() => apart(editor, value));
  useEffect(() => {
    if (emitted.current.has(value)) return;
    emitted.current = new Set([value]);
    setShown(apart(editor, value));
  }, [editor, value]);
  const emit = (next: Amount<string>) => {
    setShown(next);
    const joined = editor.join(next);
    if (emitted.current.size >= MAX_EMITTED) emitted.current.clear();
    emitted.current.add(joined);
    onChange(joined);
  };
  return (
    <span class="amount">
      <input
        {...props.common}
        type="text"
        inputMode="decimal"
        autocomplete="off"
        value={shown.amount}
        onInput={(e) => emit({ ...shown, amount: e.currentTarget.value })}
      />
      <select
        aria-label={fill(t.unitOf, { label: props.label })}
        disabled={Boolean(props.common.disabled)}
        value={shown.unit}
        onChange={(e) => emit({ ...shown, unit: e.currentTarget.value })}
      >
        {editor.units.map((u) => (
          <option key={u} value={u}>
            {unitText(t, u)}
          </option>
        ))}
      </select>
    </span>
  );
}

/** Values an amount editor remembers having written (each edit adds one; a long edit starts over). */
const MAX_EMITTED = 64;

/** A value taken apart; one the editor cannot read (a stored typo) shows as it is, for the user to fix. */
function apart(editor: AmountEditor, value: string): Amount<string> {
  return editor.split(value) ?? { amount: value, unit: editor.units[0] };
}

/** A unit in the UI's language; one the dashboard does not know (a plugin's own) as the plugin wrote it. */
function unitText(t: Messages, unit: string): string {
  return optionalMessage(t, `unit_${unit}`) ?? unit;
}
