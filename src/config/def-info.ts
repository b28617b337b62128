/**
 * The definitions as a settings page gets them (ConfigAPI.defs): templates included, so a page can offer
 * "add an LLM source"; hidden ones left out; each with whether its value is shown masked and which
 * environment variable, if one is set, wins over the stored value (so the page can say where to change it).
 * A definition's extra `check` rule is code, not data, and stays behind.
 */
import type { ConfigDefInfo } from "@homeagent/sdk";
import type { ConfigDef } from "./config-def.js";
import type { EnvOverlay } from "./env.js";
import { isName, isSecret } from "./validate.js";

export function defInfos(defs: Iterable<ConfigDef>, env: EnvOverlay, prefix: string): ConfigDefInfo[] {
  const infos: ConfigDefInfo[] = [];
  for (const { check: _check, ...def } of defs) {
    if (def.hidden || !covers(def.key, prefix)) continue;
    const variable = env.get(def.key)?.variable;
    infos.push({ ...def, secret: isSecret(def, def.key), ...(variable ? { env: variable } : {}) });
  }
  // In the order they were defined: a settings page shows a card's fields as their author ordered them
  // (a source's adapter, base URL, model, then key), not by the alphabet.
  return infos;
}

/**
 * Whether `key` lies under `prefix`. A template also lies under a prefix that names one of its instances:
 * "core.llm.sources.main." covers "core.llm.sources.*.base_url".
 */
function covers(key: string, prefix: string): boolean {
  if (key.startsWith(prefix)) return true;
  const keyParts = key.split(".");
  if (!keyParts.includes("*")) return false;
  const parts = prefix.split(".");
  if (parts.length > keyParts.length) return false;
  return parts.every((part, i) => {
    const last = i === parts.length - 1;
    if (keyParts[i] !== "*") return last ? keyParts[i].startsWith(part) : keyParts[i] === part;
    // The last part of a prefix may be the start of a name, even an empty one.
    return last ? part === "" || isName(part) : isName(part);
  });
}
