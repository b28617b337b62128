/**
 * Checks a stage patch that came from another process before any of it is applied: a subprocess plugin
 * is not type-checked with the daemon, and one bad value (a number where the turn expects text) would
 * break the turn far from its cause. A patch that fails the check counts as that handler's error, so the
 * handler contributes nothing, as if it had thrown.
 */
import type { ContextMessage } from "@homeagent/sdk";
import { STAGE_SET_FIELDS, type StageOp, type StagePatch, type StageSetField } from "@homeagent/sdk/protocol";
import { HomeAgentError } from "../util/errors.js";
import { isObject } from "../util/object.js";

export class StagePatchError extends HomeAgentError {}

const ROLES: ReadonlySet<unknown> = new Set(["system", "user", "assistant"]);
const STATUSES: ReadonlySet<unknown> = new Set(["ok", "error", "denied", "interrupted", "unknown_tool"]);

const isString = (v: unknown): boolean => typeof v === "string";
const isMessage = (v: unknown): v is ContextMessage => isObject(v) && ROLES.has(v.role) && isString(v.content);

const SET_VALUES: Record<StageSetField, (v: unknown) => boolean> = {
  rawMessage: isString,
  userId: isString,
  groupId: isString,
  llmText: isString,
  reasoningContent: isString,
  finalText: isString,
  phase: isString,
  response: (v) => v === null || isString(v),
  noMemory: (v) => typeof v === "boolean",
  tokenUsage: (v) => v === null || isObject(v),
  memory: (v) => Array.isArray(v) && v.every((m) => isObject(m) && isString(m.role) && isString(m.content)),
  contextMsgs: (v) => Array.isArray(v) && v.every(isMessage),
};

/** What is wrong with `op`, or "" when it is a valid operation. */
function problem(op: unknown): string {
  if (!isObject(op)) return "not an object";
  switch (op.op) {
    case "set":
      if (!STAGE_SET_FIELDS.includes(op.field as StageSetField)) {
        return `field ${JSON.stringify(op.field)} cannot be set (settable: ${STAGE_SET_FIELDS.join(", ")})`;
      }
      return SET_VALUES[op.field as StageSetField](op.value) ? "" : `the value of ${op.field} has the wrong type`;
    case "appendContext":
      return isMessage(op.message) ? "" : "message needs a role (system, user, assistant) and a string content";
    case "editToolCall":
      return isString(op.id) && isObject(op.arguments) ? "" : "needs a string id and an arguments object";
    case "dropToolCall":
      return isString(op.id) ? "" : "needs a string id";
    case "addToolCall": {
      const call = op.call;
      const ok = isObject(call) && isString(call.id) && isString(call.name) && isObject(call.arguments);
      return ok ? "" : "call needs a string id, a string name and an arguments object";
    }
    case "replaceToolResult": {
      const r = op.result;
      const ok = isString(op.toolCallId) && isObject(r) && isString(r.content);
      if (!ok) return "needs a string toolCallId and a result with a string content";
      return r.status === undefined || STATUSES.has(r.status) ? "" : `unknown status ${JSON.stringify(r.status)}`;
    }
    case "mergeExtra":
      return isObject(op.values) ? "" : "values must be an object";
    default:
      return `unknown op ${JSON.stringify(op.op)}`;
  }
}

/** `value` as a StagePatch, or a StagePatchError naming the first bad operation. */
export function checkPatch(value: unknown): StagePatch {
  if (!Array.isArray(value)) {
    throw new StagePatchError({
      code: "stage_patch_invalid",
      message:
        "the stage handler answered without a patch: send {patch: [...operations]} (an empty list changes nothing)",
    });
  }
  value.forEach((op, i) => {
    const why = problem(op);
    if (why) {
      throw new StagePatchError({
        code: "stage_patch_invalid",
        message: `stage patch operation ${i} is invalid: ${why}; nothing of this patch was applied (see docs/plugin-protocol.md)`,
      });
    }
  });
  return value as StageOp[];
}
