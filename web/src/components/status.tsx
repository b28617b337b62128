/** Small shared pieces of every tab: the error line (the server's message as it is) and a loading line. */
import { useT } from "../i18n";

export function ErrorLine({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

export function Loading() {
  const t = useT();
  return <p aria-busy="true">{t.loading}</p>;
}

/** The tone of a plugin's health: degraded still runs (its stage handlers are skipped), unhealthy does not. */
export function healthTone(health: string): "ok" | "warn" | "bad" {
  return health === "ok" ? "ok" : health === "degraded" ? "warn" : "bad";
}

/** A state word with a colour class; the word carries the meaning, the colour only repeats it. */
export function Badge({ tone, children }: { tone: "ok" | "warn" | "bad" | "muted"; children: string }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}
