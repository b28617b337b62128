/**
 * The one error every Lua failure becomes, whatever happened: the script raised an error, ran past its
 * limit, or its worker thread died. Callers that name the script themselves use `detail`; the rest show
 * the message, which always names the kind of script and the script.
 */
import { HomeAgentError } from "../util/errors.js";

export type LuaErrorCode =
  /** The script raised an error (or failed to compile). */
  | "lua_error"
  /** The call ran past its time limit: stopped by the in-Lua hook, or its worker was terminated. */
  | "lua_timeout"
  /** The worker thread running the state died (out of memory, crashed) or could not start. */
  | "lua_worker"
  /** The VM was closed, or too many calls were already waiting for it. */
  | "lua_unavailable";

export interface LuaErrorOptions {
  /** What the scripts are ("adapter", "plugin"…), for messages. */
  kind: string;
  script: string;
  detail: string;
  code?: LuaErrorCode;
  cause?: unknown;
  /** For a failure inside LuaVM.callEach: the position of the call that failed. */
  callIndex?: number;
}

/**
 * The message reads "lua: <kind> <script>: <detail>", or "lua: adapter openai exceeded 2000 ms" for a
 * timeout. `timedOut` tells a runaway script from an ordinary error.
 */
export class LuaError extends HomeAgentError {
  readonly kind: string;
  readonly script: string;
  readonly detail: string;
  readonly timedOut: boolean;
  readonly callIndex?: number;

  constructor({ kind, script, detail, code = "lua_error", cause, callIndex }: LuaErrorOptions) {
    const timedOut = code === "lua_timeout";
    super({
      code,
      message: timedOut ? `lua: ${kind} ${script} ${detail}` : `lua: ${kind} ${script}: ${detail}`,
      cause,
    });
    this.kind = kind;
    this.script = script;
    this.detail = detail;
    this.timedOut = timedOut;
    if (callIndex !== undefined) this.callIndex = callIndex;
  }
}
