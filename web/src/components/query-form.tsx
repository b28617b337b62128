/** A one-field form (label, input, submit button) for the Memory and Knowledge tabs' searches and previews. */
import { useState } from "preact/hooks";

interface Props {
  id: string;
  label: string;
  button: string;
  onSubmit: (value: string) => void | Promise<void>;
  required?: boolean;
}

export function QueryForm({ id, label, button, onSubmit, required = true }: Props) {
  const [value, setValue] = useState("");
  const [pending, setPending] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (required && value.trim() === "") return;
    setPending(true);
    try {
      await onSubmit(value.trim());
    } finally {
      setPending(false);
    }
  };
  return (
    <form class="row" onSubmit={submit}>
      <label for={id}>{label}</label>
      <input id={id} type="search" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      <button type="submit" disabled={pending}>
        {button}
      </button>
    </form>
  );
}
