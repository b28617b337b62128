/**
 * Errors of subprocess plugins: a launch that failed at one step (the code says which), and a call into
 * the plugin that failed (the plugin's own error, a deadline, or the plugin being gone). The wire error
 * stays reachable as `cause`.
 */
import { isErrorCode } from "@homeagent/sdk";
import { RpcError } from "@homeagent/sdk/protocol";
import { errorMessage, HomeAgentError } from "../../util/errors.js";

/** The launch steps, in order; each has its own error codes so logs and status say where it failed. */
export type LaunchStep = "spawn" | "handshake" | "init" | "start";

export type LaunchErrorCode =
  | "plugin_spawn_failed"
  | "plugin_handshake_failed"
  | "plugin_handshake_timeout"
  | "plugin_protocol_mismatch"
  | "plugin_name_mismatch"
  | "plugin_init_failed"
  | "plugin_start_failed"
  | "plugin_start_timeout";

export class PluginLaunchError extends HomeAgentError {
  constructor(
    readonly plugin: string,
    readonly step: LaunchStep,
    code: LaunchErrorCode,
    problem: string,
    readonly stderrTail: string,
    cause?: unknown,
  ) {
    const tail = stderrTail.trim();
    super({
      code,
      message: `plugin "${plugin}" failed to load (${step}): ${problem}${tail ? `; its stderr ended with:\n${tail}` : "; it wrote nothing to stderr"}`,
      cause,
    });
  }
}

/** A daemon → plugin call that failed; `code` is the plugin's HomeAgent code when it sent one. */
export class PluginCallError extends HomeAgentError {
  constructor(plugin: string, method: string, cause: unknown) {
    const wire = cause instanceof RpcError ? cause.data?.code : undefined;
    super({
      code: isErrorCode(wire) ? wire : "plugin_call_failed",
      message: `plugin "${plugin}" (${method}): ${errorMessage(cause)}`,
      cause,
    });
  }
}
