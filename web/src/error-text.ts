/**
 * What the daemon refused, said in the UI's language: an error by its code, a refused setting by its
 * refusal's id and details. A code or id the tables do not know shows the server's own English, which
 * always comes with it; an error whose sentence has a `{detail}` carries the server's words there.
 */
import { ApiError, type Refusal } from "./api";
import { fill, type Messages, optionalMessage } from "./i18n";

export function errorText(t: Messages, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof ApiError)) return message;
  const template = optionalMessage(t, `error_${err.code}`);
  if (template === undefined) return message;
  return fill(template, { count: Object.keys(err.refused).length, detail: message });
}

export function refusalText(t: Messages, english: string, refusal: Refusal | undefined): string {
  const template = refusal && optionalMessage(t, `refusal_${refusal.reason}`);
  return template === undefined ? english : fill(template, refusal?.params ?? {});
}
