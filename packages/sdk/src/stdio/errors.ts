/**
 * Errors a subprocess plugin meets from its SDK. They carry the same string `code` an in-process plugin
 * would see (e.g. "capability_denied"), so a plugin that checks `err.code` behaves the same either way.
 */
import {
  RPC_CLOSED,
  RPC_DEADLINE,
  RPC_FRAME_TOO_LARGE,
  RPC_METHOD_NOT_FOUND,
  type RpcError,
} from "../protocol/peer.js";

const CODE_NAMES: Record<number, string> = {
  [RPC_METHOD_NOT_FOUND]: "method_not_found",
  [RPC_FRAME_TOO_LARGE]: "frame_too_large",
  [RPC_DEADLINE]: "deadline",
  [RPC_CLOSED]: "peer_closed",
};

/** A `core.*` call the daemon refused or could not answer; `cause` is the RpcError as it came. */
export class SdkCallError extends Error {
  /** The HomeAgent error code (`data.code` on the wire), or a name for the JSON-RPC code. */
  readonly code: string;
  /** The JSON-RPC error code, e.g. -32000. */
  readonly rpcCode: number;

  constructor(cause: RpcError) {
    super(cause.message, { cause });
    this.name = "SdkCallError";
    this.rpcCode = cause.code;
    this.code = cause.data?.code ?? CODE_NAMES[cause.code] ?? "rpc_failed";
  }
}

/** A PluginSDK member that cannot work across a process boundary. */
export class SubprocessUnsupportedError extends Error {
  readonly code = "subprocess_unsupported";

  constructor(what: string, instead: string) {
    super(`${what} is not available to a subprocess plugin; ${instead}`);
    this.name = "SubprocessUnsupportedError";
  }
}
