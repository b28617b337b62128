/**
 * Durations as the config center reads them: the SDK's parser (one for the daemon and every plugin), its
 * refusals as ConfigErrors like every other refusal of a setting.
 */
import { parseDuration as parse } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { ConfigError } from "./errors.js";

export function parseDuration(s: string): number {
  try {
    return parse(s);
  } catch (err) {
    throw new ConfigError("config_invalid", errorMessage(err), err);
  }
}
