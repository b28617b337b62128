/**
 * Checks a stage patch before any of it is applied. One from another process is checked for its shape: a
 * subprocess plugin is not type-checked with the daemon, and one bad value (a number where the turn expects
 * text) would break the turn far from its cause. Every patch, in-process ones too, is checked against the
 * bounds of stage-limits.ts and may add calls only of its own plugin's tools: otherwise a plugin could make
 * the kernel run any tool, one it has no capability for (memory_purge). A patch that fails a check counts
 * as that handler's error, so the handler contributes nothing, as if it had thrown. Editing or dropping a
 * call of another plugin's tool needs "tool_calls_any" (a plugin rewrote the model's memory_commit to store
 * what it liked), and so does replacing its result (a plugin forged memory_recall's answer, which the model
 * read and memory stored): such an operation alone is left out, and the caller says so.
 */
import type { ContextMessage, ToolCall, ToolResult } from "@homeagent/sdk";
import { STAGE_SET_FIELDS, type StageOp, type StagePatch, type StageSetField } from "@homeagent/sdk/protocol";
import { HomeAgentError } from "../util/errors.js";
import { isObject } from "../util/object.js";
import { opProblem } from "./stage-limits.js";

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

/** `value` as a StagePatch, or a StagePatchError naming the first bad or unbounded operation. */
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
  return checkBounds(value as StageOp[]);
}

/** `patch` itself, or a StagePatchError naming the first operation over the bounds of stage-limits.ts. */
export function checkBounds(patch: StagePatch): StagePatch {
  patch.forEach((op, i) => {
    const why = opProblem(op);
    if (why) throw refused(i, op, why);
  });
  return patch;
}

/** What a handler may do to the calls and results of the context it saw. */
export interface CallAccess {
  plugin: string;
  calls: readonly ToolCall[];
  results: readonly ToolResult[];
  toolOwner: ((name: string) => string | undefined) | undefined;
  /** It holds "tool_calls_any": it may edit and drop calls of any tool, and replace their results. */
  any: boolean;
}

type CallOp = Extract<StageOp, { op: "addToolCall" | "editToolCall" | "dropToolCall" | "replaceToolResult" }>;

const isCallOp = (op: StageOp): op is CallOp =>
  op.op === "addToolCall" || op.op === "editToolCall" || op.op === "dropToolCall" || op.op === "replaceToolResult";

/** The call `op` is about, and the name of its tool, if it is in the context. */
function target(op: CallOp, access: CallAccess): { id: string; tool: string | undefined } {
  if (op.op === "replaceToolResult") {
    return { id: op.toolCallId, tool: access.results.find((r) => r.toolCallId === op.toolCallId)?.name };
  }
  const id = op.op === "addToolCall" ? op.call.id : op.id;
  return { id, tool: access.calls.find((c) => c.id === id)?.name };
}

/**
 * `patch` as `access.plugin` may apply it: `kept` leaves out each edit, drop or replacement of a call, and
 * each replacement of a result, of a tool the plugin does not own (unless `access.any`), and `refused` says
 * why each was left out. Adding a call of a tool the plugin does not own is refused by no capability: it
 * throws a StagePatchError. Adding back a call that is there (same id and tool, e.g. its raw arguments
 * changed) is an edit of it; an edit or drop of a call that is not there, or a replacement of a result that
 * is not, is left out, as it would change nothing.
 */
export function checkToolCalls(patch: StagePatch, access: CallAccess): { kept: StagePatch; refused: string[] } {
  const refusals: string[] = [];
  const owner = (name: string) => access.toolOwner?.(name);
  const kept = patch.filter((op, i) => {
    if (!isCallOp(op)) return true;
    const { id, tool } = target(op, access);
    if (op.op === "addToolCall" && owner(op.call.name) !== access.plugin && tool !== op.call.name) {
      throw refused(
        i,
        op,
        `a stage handler may add calls only of its own plugin's tools, and "${op.call.name}" is ${whose(owner(op.call.name))}; edit or drop the calls that are there instead`,
      );
    }
    if (tool === undefined) return op.op === "addToolCall";
    if (access.any || owner(tool) === access.plugin) return true;
    refusals.push(
      `${op.op} of call "${id}" of tool "${tool}" (${whose(owner(tool))}) needs the "tool_calls_any" capability: without it a plugin may add, edit or drop only calls of its own tools, and replace only their results`,
    );
    return false;
  });
  return { kept, refused: refusals };
}

/** 'a tool of "memory"', for a refusal. */
function whose(owner: string | undefined): string {
  return owner === undefined ? "no registered tool" : `a tool of ${JSON.stringify(owner)}`;
}

function refused(i: number, op: StageOp, why: string): StagePatchError {
  return new StagePatchError({
    code: "stage_patch_refused",
    message: `stage patch operation ${i} (${op.op}) is refused: ${why}; nothing of this patch was applied`,
  });
}
