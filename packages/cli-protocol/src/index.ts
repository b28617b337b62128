/** @homeagent/cli-protocol: the line protocol of homed's cli socket, spoken by the cli plugin and `waiter`. */

export { type ForgetArgs, parseForgetArgs } from "./forget-args.js";
export {
  APPROVE_LINE,
  encodeFrame,
  type FinalFrame,
  INTERACTIVE_LINE,
  isFinalFrame,
  isPushFrame,
  LINE_TOO_LONG,
  MAX_LINE_BYTES,
  type ProgressFrame,
  type PushFrame,
  type ServerFrame,
  type SettingFrameEntry,
  SHUTTING_DOWN,
  STOP_LINE,
  UNAUTHORIZED,
} from "./frames.js";
export { LineSplitter } from "./line-splitter.js";
export { CLI_SOCKET_NAME, cliSocketPath } from "./socket-path.js";
