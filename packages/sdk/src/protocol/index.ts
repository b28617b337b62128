/**
 * `@homeagent/sdk/protocol`: the subprocess plugin protocol as code — frames, the JSON-RPC peer, and the
 * stage patch format — shared by the daemon and the stdio runtime so both sides speak exactly one version of
 * it. docs/plugin-protocol.md describes the same thing for plugins written in other languages.
 */
export { encodeFrame, type Frame, type FrameEvent, FrameReader, MAX_FRAME_BYTES } from "./framing.js";
export { type CallOptions, RpcPeer, type RpcPeerOptions } from "./peer.js";
export type { RequestContext } from "./request-context.js";
export {
  RPC_CLOSED,
  RPC_DEADLINE,
  RPC_FAILED,
  RPC_FRAME_TOO_LARGE,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RpcError,
} from "./rpc-error.js";
export * from "./stage-patch.js";

/** The protocol version of the handshake; a plugin speaking another one is refused with a clear message. */
export const PROTOCOL_VERSION = 1;
