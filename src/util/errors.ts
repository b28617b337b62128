/**
 * The one error base of the daemon. Every failure that crosses a module boundary is a HomeAgentError with a
 * stable `code` (for programs: the API, the cli socket, tests) and the original error kept as `cause`, so a
 * log line or a debugger can still reach what really went wrong instead of a flattened string. It is the
 * SDK's SdkError, so its code is one of the SDK's ErrorCode list and plugins see the same errors.
 */
import { SdkError } from "@homeagent/sdk";

export class HomeAgentError extends SdkError {}

/** The message of anything thrown: an Error's message, else its string form. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The useful part of a network failure: fetch() reports "fetch failed" and hides ECONNREFUSED, ENOTFOUND,
 * a TLS error … in `cause`; node:http puts the code on the error itself.
 */
export function causeOf(err: unknown): string {
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? systemCode(err) ?? errorMessage(err);
}

/** A socket error's code (ECONNREFUSED, ENOTFOUND, …), as node:http reports it on the error itself. */
function systemCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : undefined;
}
