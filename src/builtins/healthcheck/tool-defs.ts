/** The healthcheck tools as the model sees them (names as in the original). */
import type { ToolDef } from "@homeagent/sdk";
import { REPORT_STATUSES } from "./reports.js";

const RESULT =
  "Returns {status: ok|warn|fail, counts, checks: [{name, status, detail, fix?}] with failures first, durationMs}.";

const PROBE = {
  probe_llm: {
    type: "boolean",
    description: "Also send each LLM source one tiny test request (costs a few tokens, up to 10 s). Default false.",
  },
};

export const HEALTHCHECK_TOOLS: ToolDef[] = [
  {
    name: "healthcheck",
    description: `Check HomeAgent's health: plugins, tool definitions, LLM sources, memory integrity, kernel status, disk space and clock — or only one plugin and its tools. ${RESULT}`,
    parameters: {
      type: "object",
      properties: {
        plugin: { type: "string", description: "Check only this plugin (its state and its tools)." },
        ...PROBE,
        reuse_memory_check: {
          type: "boolean",
          description:
            "Take a memory check of the last 10 minutes, if there is one, instead of reading memory.db again.",
        },
      },
    },
    noMemory: true,
  },
  {
    name: "healthcheck_plugins",
    description: `Check that every plugin is running and healthy (not failed, crashed or degraded). ${RESULT}`,
    parameters: { type: "object", properties: {} },
    noMemory: true,
  },
  {
    name: "healthcheck_tools",
    description: `Check every tool's definition against the rules of OpenAI, Anthropic and Gemini (name, parameter schema, description). ${RESULT}`,
    parameters: { type: "object", properties: {} },
    noMemory: true,
  },
  {
    name: "healthcheck_memory",
    description: `Check memory.db's integrity and that its search index matches the stored items (read-only; may take seconds). ${RESULT}`,
    parameters: { type: "object", properties: {} },
    noMemory: true,
  },
  {
    name: "healthcheck_kernel",
    description: `Check the daemon itself: invalid settings, embedding fallbacks, the input queue, LLM sources, disk space and clock. ${RESULT}`,
    parameters: { type: "object", properties: { ...PROBE } },
    noMemory: true,
  },
  {
    name: "healthcheck_perf",
    description:
      "How long recent tool calls and health checks took: per tool or check group, calls, failures, median and max milliseconds, slowest first.",
    parameters: { type: "object", properties: {} },
    noMemory: true,
  },
  {
    name: "healthcheck_report",
    description:
      "Record the result of trying a tool while testing HomeAgent: its name, whether it worked (ok), failed (fail) or was not tried (skip), and what happened. A failed report shows in the next healthcheck.",
    parameters: {
      type: "object",
      properties: {
        tool_name: { type: "string", description: "The tool that was tried." },
        status: { type: "string", enum: [...REPORT_STATUSES], description: "ok, fail or skip." },
        detail: { type: "string", description: "What happened, e.g. the error (at most 2000 characters)." },
      },
      required: ["tool_name", "status", "detail"],
    },
    noMemory: true,
  },
];
