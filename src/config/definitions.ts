/**
 * The table of known settings: exact keys and templates (a `*` segment stands for a name, e.g. an LLM
 * source's). Registering checks each definition against its own rules, so a bad default fails where it is
 * written rather than at some later read.
 */
import type { ConfigDef } from "./config-def.js";
import { ConfigError } from "./errors.js";
import { defProblem, isName } from "./validate.js";

export class DefTable {
  private readonly exact = new Map<string, ConfigDef>();
  private readonly templates: ConfigDef[] = [];

  /** Adds or replaces definitions; nothing is registered when one of them is refused. */
  register(defs: ConfigDef[]): void {
    for (const def of defs) {
      const bad = def.key.split(".").some((s) => s === "") ? "the key has an empty segment" : defProblem(def);
      if (bad) throw new ConfigError("config_bad_definition", `config def ${def.key}: ${bad}`);
    }
    for (const def of defs) {
      if (!def.key.split(".").includes("*")) {
        this.exact.set(def.key, def);
        continue;
      }
      const i = this.templates.findIndex((t) => t.key === def.key);
      if (i >= 0) this.templates[i] = def;
      else this.templates.push(def);
    }
  }

  /** The definition covering `key`: its own, else the template whose `*` segments match name segments. */
  get(key: string): ConfigDef | undefined {
    const exact = this.exact.get(key);
    if (exact) return exact;
    const parts = key.split(".");
    return this.templates.find((t) => {
      const tp = t.key.split(".");
      return tp.length === parts.length && tp.every((p, i) => (p === "*" ? isName(parts[i]) : p === parts[i]));
    });
  }

  /** Every definition, templates included. */
  all(): ConfigDef[] {
    return [...this.exact.values(), ...this.templates];
  }

  /** Keys with a definition of their own (templates are not settings themselves). */
  keys(): IterableIterator<string> {
    return this.exact.keys();
  }
}
