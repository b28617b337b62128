/**
 * cfgmgr's tools over ConfigAPI. Answers are bounded (a dump of every setting would be most of a small
 * model's window): at most MAX_LISTED entries and MAX_ANSWER_CHARS characters, the rest counted. Whether a
 * key may change is not decided here: cfgmgr writes for the model (PluginFactory.forModel), so the daemon
 * refuses every key that is not `agentWritable` before anything is written; a batch is all or nothing.
 */
import type { ConfigAPI, ConfigDefInfo, ToolDef } from "@homeagent/sdk";

const MAX_LISTED = 200;
const MAX_ANSWER_CHARS = 16_000;
/** One value or description shown: a 20,000-character prompt would otherwise take the whole answer. */
const MAX_LINE_CHARS = 2_000;
/** A key as an error repeats it. */
const MAX_KEY_CHARS = 120;
/** Keys one config_batch_set may change. */
const MAX_BATCH = 16;

type Handler = (args: Record<string, unknown>) => string;

/** A value the model may give: text, or a number or yes/no it means as text. */
const isText = (v: unknown): boolean => ["string", "number", "boolean"].includes(typeof v);

export function configTools(config: ConfigAPI): Array<[ToolDef, Handler]> {
  const defOf = (key: string): ConfigDefInfo | undefined => matchingDef(config.defs(""), key);
  return [
    [
      tool("config_list_plugins", "List the plugins that have settings, with how many each has.", {}),
      () => {
        const counts = new Map<string, number>();
        for (const d of config.defs("plugin.")) {
          const name = d.key.split(".")[1];
          counts.set(name, (counts.get(name) ?? 0) + 1);
        }
        return bounded([...counts].map(([name, n]) => `${name}: ${n} setting(s) (prefix plugin.${name}.)`));
      },
    ],
    [
      tool(
        "config_list_keys",
        "List setting keys under a prefix (e.g. core.agent.), each marked writable or user-only.",
        {
          prefix: { type: "string", description: "Key prefix; empty for all." },
        },
      ),
      (args) =>
        bounded(
          config
            .defs(prefix(args))
            .map((d) => `${d.key} (${d.type}${d.agentWritable === true ? ", writable" : ", user-only"})`),
        ),
    ],
    [
      tool(
        "config_get",
        "Read one setting's value (secrets masked) and what it means.",
        {
          key: { type: "string", description: "The full key, e.g. core.agent.timezone." },
        },
        ["key"],
      ),
      (args) => {
        const key = String(args.key ?? "");
        const entry = config.list(key).find((e) => e.key === key);
        const def = defOf(key);
        if (!def) return `error: ${short(key)}: no such setting (config_list_keys lists them)`;
        return bounded([
          `${key} = ${shown(def, entry?.value ?? (def.secret ? "" : def.default))}`,
          ...(def ? [describe(def)] : []),
        ]);
      },
    ],
    [
      tool(
        "config_get_defs",
        "The definitions under a prefix: type, default, bounds, options, and who may change each.",
        {
          prefix: { type: "string", description: "Key prefix; empty for all." },
        },
      ),
      (args) => bounded(config.defs(prefix(args)).map(describe)),
    ],
    [
      tool("config_dump", "Every setting's current value under a prefix, secrets masked.", {
        prefix: { type: "string", description: "Key prefix; empty for all." },
      }),
      (args) => {
        const defs = config.defs("");
        // Declared settings only: a plugin's own bookkeeping is not the model's to read.
        return bounded(
          config.list(prefix(args)).flatMap((e) => {
            const def = matchingDef(defs, e.key);
            return def ? [`${e.key} = ${shown(def, e.value)}`] : [];
          }),
        );
      },
    ],
    [
      tool(
        "config_set",
        "Change one setting the agent may change (config_list_keys marks them writable); others only the user can change.",
        {
          key: { type: "string", description: "The full key." },
          value: { type: "string", description: "The new value, as text; empty restores the default." },
        },
        ["key", "value"],
      ),
      (args) => {
        const key = String(args.key ?? "");
        const wanted = args.value;
        if (!isText(wanted)) return "error: value is text";
        try {
          config.set(key, String(wanted));
        } catch (err) {
          return `error: ${(err as Error).message}`;
        }
        return `${key} is now ${JSON.stringify(config.list(key).find((e) => e.key === key)?.value ?? "")}`;
      },
    ],
    [
      tool(
        "config_batch_set",
        `Change several writable settings at once, all or none (at most ${MAX_BATCH}); each is checked before any is written.`,
        {
          changes: {
            type: "object",
            description: 'Keys and their new values as text, e.g. {"core.llm.temperature": "0.3"}.',
          },
        },
        ["changes"],
      ),
      (args) => {
        const changes = args.changes;
        if (!changes || typeof changes !== "object" || Array.isArray(changes)) {
          return "error: changes is an object of keys and values";
        }
        const entries = Object.entries(changes as Record<string, unknown>);
        if (entries.length === 0 || entries.length > MAX_BATCH) return `error: give 1 to ${MAX_BATCH} changes`;
        if (entries.some(([, v]) => !isText(v))) {
          return "error: nothing was changed: each value is text";
        }
        let result: ReturnType<ConfigAPI["setMany"]>;
        try {
          result = config.setMany(Object.fromEntries(entries.map(([k, v]) => [k, String(v)])));
        } catch (err) {
          return `error: nothing was changed: ${(err as Error).message}`;
        }
        const reasons = Object.entries(result.refused);
        if (reasons.length > 0)
          return `error: nothing was changed: ${reasons.map(([k, r]) => `${k}: ${r}`).join("; ")}`;
        return `changed ${entries.map(([k]) => k).join(", ")}`;
      },
    ],
  ];
}

function tool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[] = [],
): ToolDef {
  return { name, description, parameters: { type: "object", properties, required }, noMemory: true };
}

function short(key: string): string {
  return key.length > MAX_KEY_CHARS ? `${key.slice(0, MAX_KEY_CHARS)}…` : key;
}

/**
 * A value as the model reads it: `list` masks secrets already; a URL's query string (where some services
 * take their key) is left out; long values are cut.
 */
function shown(def: ConfigDefInfo, value: string): string {
  const text = def.type === "url" && value.includes("?") ? `${value.slice(0, value.indexOf("?"))}?…` : value;
  return JSON.stringify(text);
}

function prefix(args: Record<string, unknown>): string {
  return typeof args.prefix === "string" ? args.prefix : "";
}

/** The definition of `key`: its own, or the template it is an instance of (core.llm.sources.*.model). */
function matchingDef(defs: ConfigDefInfo[], key: string): ConfigDefInfo | undefined {
  const parts = key.split(".");
  return defs.find((d) => {
    if (d.key === key) return true;
    const own = d.key.split(".");
    return own.length === parts.length && own.every((p, i) => p === "*" || p === parts[i]);
  });
}

function describe(d: ConfigDefInfo): string {
  const bounds = [
    d.options ? `one of ${d.options.join(", ")}` : "",
    d.min !== undefined ? `min ${d.min}` : "",
    d.max !== undefined ? `max ${d.max}` : "",
  ].filter(Boolean);
  return `${d.key} (${d.type}${bounds.length ? `; ${bounds.join(", ")}` : ""}; default ${shown(d, d.secret ? "" : d.default)}; ${d.agentWritable === true ? "the agent may change it" : "user-only"}): ${d.description}`;
}

/** Lines within MAX_LISTED and MAX_ANSWER_CHARS, the rest counted. */
function bounded(lines: string[]): string {
  if (lines.length === 0) return "nothing matches";
  const kept: string[] = [];
  let chars = 0;
  for (const whole of lines.slice(0, MAX_LISTED)) {
    const line =
      whole.length > MAX_LINE_CHARS ? `${whole.slice(0, MAX_LINE_CHARS)}… (${whole.length} characters)` : whole;
    if (chars + line.length > MAX_ANSWER_CHARS) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const left = lines.length - kept.length;
  return left > 0 ? `${kept.join("\n")}\n… ${left} more (give a longer prefix)` : kept.join("\n");
}
