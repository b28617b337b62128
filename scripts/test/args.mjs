// The test command's arguments: tier names, path filters, and node's own test flags. A node flag may be
// written `--flag=value` or `--flag value`; for the latter the flags that take a value are known here, so
// the value is never mistaken for a path filter (and a filter never for a flag's value).
import { TIERS } from "./tiers.mjs";

const VALUE_FLAGS = new Set([
  "--test-name-pattern",
  "--test-skip-pattern",
  "--test-timeout",
  "--test-reporter",
  "--test-reporter-destination",
  "--test-shard",
  "--test-concurrency",
]);

/** { tiers, filters, nodeFlags } from the command line's arguments. */
export function parseArgs(args) {
  const tiers = [];
  const filters = [];
  const nodeFlags = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith("-")) {
      if (VALUE_FLAGS.has(arg)) {
        if (i + 1 >= args.length) throw new Error(`${arg} needs a value (${arg}=… or ${arg} …)`);
        nodeFlags.push(`${arg}=${args[++i]}`);
      } else {
        nodeFlags.push(arg);
      }
    } else if (TIERS.includes(arg)) {
      tiers.push(arg);
    } else {
      filters.push(arg);
    }
  }
  return { tiers, filters, nodeFlags };
}
