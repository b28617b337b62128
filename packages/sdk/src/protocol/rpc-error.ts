/**
 * The JSON-RPC error side of the protocol: the codes on the wire, RpcError (a failed call, carrying both the
 * JSON-RPC code and a HomeAgent ErrorCode), and the mapping between a thrown error and the wire's `error`
 * object in each direction. RpcPeer uses it; the stdio runtime reads and throws these codes too.
 */
import { type ErrorCode, isErrorCode, SdkError } from "../errors.js";

export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_FAILED = -32000;
export const RPC_FRAME_TOO_LARGE = -32001;
export const RPC_DEADLINE = -32002;
export const RPC_CLOSED = -32003;

/** The ErrorCode of a failure whose `data` names none of ERROR_CODES, by its JSON-RPC code. */
const CODE_NAMES: Record<number, ErrorCode> = {
  [RPC_METHOD_NOT_FOUND]: "method_not_found",
  [RPC_FRAME_TOO_LARGE]: "frame_too_large",
  [RPC_DEADLINE]: "deadline",
  [RPC_CLOSED]: "peer_closed",
};

/**
 * A failed call: the other side's error, or one of ours (deadline, closed peer, oversized frame). Its `code`
 * is `data.code` when that is one of ERROR_CODES, else a name for the JSON-RPC code ("rpc_failed" for any
 * other); `rpcCode` is the JSON-RPC code itself.
 */
export class RpcError extends SdkError {
  constructor(
    /** The JSON-RPC error code, e.g. RPC_FAILED (-32000). */
    readonly rpcCode: number,
    message: string,
    /** As on the wire: `code` is the HomeAgent error code, e.g. "capability_denied", or a plugin's own. */
    readonly data?: { code?: string },
  ) {
    super({ code: isErrorCode(data?.code) ? data.code : (CODE_NAMES[rpcCode] ?? "rpc_failed"), message });
  }
}

export interface WireError {
  code: number;
  message: string;
  data?: { code?: string };
}

export function toWireError(err: unknown): WireError {
  if (err instanceof RpcError) {
    return { code: err.rpcCode, message: err.message, ...(err.data ? { data: err.data } : {}) };
  }
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  // Only the SDK's codes cross the wire (a Node error's "ENOENT" is the plugin's own business).
  return { code: RPC_FAILED, message, ...(typeof code === "string" && isErrorCode(code) ? { data: { code } } : {}) };
}

export function fromWireError(raw: unknown): RpcError {
  if (typeof raw !== "object" || raw === null) return new RpcError(RPC_FAILED, String(raw));
  const e = raw as { code?: unknown; message?: unknown; data?: unknown };
  const data = e.data as { code?: unknown } | undefined;
  return new RpcError(
    typeof e.code === "number" ? e.code : RPC_FAILED,
    typeof e.message === "string" ? e.message : JSON.stringify(raw),
    typeof data?.code === "string" ? { code: data.code } : undefined,
  );
}
