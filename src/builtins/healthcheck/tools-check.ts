/**
 * Is each tool's definition acceptable to every provider the daemon may send it to? A rule broken for a
 * provider in use (an LLM source with its adapter) fails; one broken only for a provider not configured
 * warns, since adding such a source later would break every request that offers the tool.
 */
import type { ToolInfo } from "@homeagent/sdk";
import { type Check, fail, ok, warn } from "./check.js";
import { PROVIDERS, type Provider, type SchemaProblem, schemaProblems } from "./schema-rules.js";

export function toolChecks(tools: readonly ToolInfo[], inUse: ReadonlySet<Provider>): Check[] {
  const checks = tools.flatMap((t) => {
    const problems = schemaProblems(t);
    return problems.length === 0 ? [] : [toolCheck(t, problems, inUse)];
  });
  if (checks.length === 0) {
    checks.push(ok("tools", `${tools.length} tools: every definition is valid for ${PROVIDERS.join(", ")}`));
  }
  return checks;
}

function toolCheck(tool: ToolInfo, problems: SchemaProblem[], inUse: ReadonlySet<Provider>): Check {
  const refusedNow = problems.some((p) => p.providers.some((provider) => inUse.has(provider)));
  const detail = problems
    .map((p) => `${p.rule}: ${p.message}${p.advisory ? "" : ` (refused by ${p.providers.join(", ")})`}`)
    .join("; ");
  const fix = `the tool belongs to ${tool.owner}: correct its definition there (or disable that plugin)`;
  return refusedNow ? fail(`tool:${tool.name}`, detail, fix) : warn(`tool:${tool.name}`, detail, fix);
}
