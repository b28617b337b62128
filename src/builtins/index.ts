/** The built-in plugins, in start order. Each uses only the public SDK. */
import type { Plugin } from "@homeagent/sdk";
import { createCliPlugin } from "./cli/plugin.js";

export function builtinPlugins(): Array<{ name: string; create(): Plugin }> {
  return [{ name: "cli", create: () => createCliPlugin() }];
}
