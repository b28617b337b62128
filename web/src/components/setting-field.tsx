/**
 * One setting as a form control chosen by its type (select, checkbox, number, password, textarea, text),
 * labelled by its display name, with its description and the server's refusal tied to it for screen readers.
 */
import type { ConfigDefInfo } from "../types";

interface Props {
  def: ConfigDefInfo;
  id: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}

export function SettingField({ def, id, value, error, onChange }: Props) {
  const described = [`${id}-help`, error ? `${id}-error` : ""].filter(Boolean).join(" ");
  const common = { id, "aria-describedby": described, "aria-invalid": error ? true : undefined };
  const label = def.displayName || def.key;
  let control: preact.JSX.Element;
  if (def.type === "bool") {
    control = (
      <input
        {...common}
        type="checkbox"
        checked={value === "true"}
        onChange={(e) => onChange(e.currentTarget.checked ? "true" : "false")}
      />
    );
  } else if (def.type === "select" && def.options) {
    control = (
      <select {...common} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {!def.options.includes(value) && <option value={value}>{value}</option>}
        {def.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else if (def.type === "text") {
    control = <textarea {...common} rows={4} value={value} onInput={(e) => onChange(e.currentTarget.value)} />;
  } else if (def.type === "password" || def.secret) {
    control = (
      <input
        {...common}
        type="password"
        autocomplete="new-password"
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    );
  } else {
    control = (
      <input
        {...common}
        type="text"
        inputMode={def.type === "url" ? "url" : def.type === "int" || def.type === "float" ? "decimal" : undefined}
        autocomplete="off"
        placeholder={def.placeholder}
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control}
      <small id={`${id}-help`} class="hint">
        {def.description}
        {def.env ? ` (${def.env})` : ""}
      </small>
      {error && (
        <small id={`${id}-error`} class="error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}
