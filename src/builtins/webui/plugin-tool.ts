/**
 * Another built-in's answer for a route (the healthcheck's report, the MCP servers): asked through that
 * plugin's tool, as a built-in cannot import another. While the plugin is not running the route is 503 with
 * how to turn it on; an answer that is no JSON (cut at the daemon's limit of a tool's result) is a 502 that
 * says so; any other refusal keeps its own status.
 */
import { type PluginSDK, SdkError } from "@homeagent/sdk";
import { ApiError } from "./context.js";
import { toApiError } from "./sdk-errors.js";

export async function pluginToolJson(
  sdk: PluginSDK,
  plugin: string,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<unknown> {
  let text: string;
  try {
    text = await sdk.runTool(tool, args);
  } catch (err) {
    if (err instanceof SdkError && err.code === "not_found") {
      throw new ApiError(
        503,
        "unavailable",
        `the ${plugin} plugin is not running: enable it (waiter: /plugins enable ${plugin})`,
      );
    }
    throw toApiError(err);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(
      502,
      "plugin_bad_answer",
      `the ${plugin} plugin's answer was not JSON (cut at the daemon's tool-result limit?); see the daemon log`,
    );
  }
}
