/**
 * Errors a subprocess plugin meets from its SDK. They carry the same `code` an in-process plugin would see
 * (e.g. "capability_denied"), so a plugin that checks `err.code` behaves the same either way.
 */
import { SdkError } from "../errors.js";
import type { RpcError } from "../protocol/rpc-error.js";

/**
 * A `core.*` call the daemon refused or could not answer; `cause` is the RpcError as it came. `code` is the
 * HomeAgent error code (`data.code` on the wire), or a name for the JSON-RPC code.
 */
export class SdkCallError extends SdkError {
  /** The JSON-RPC error code, e.g. -32000. */
  readonly rpcCode: number;

  constructor(cause: RpcError) {
    super({ code: cause.code, message: cause.message, cause });
    this.rpcCode = cause.rpcCode;
  }
}

/** A PluginSDK member that cannot work across a process boundary. */
export class SubprocessUnsupportedError extends SdkError {
  constructor(what: string, instead: string) {
    super({ code: "subprocess_unsupported", message: `${what} is not available to a subprocess plugin; ${instead}` });
  }
}
