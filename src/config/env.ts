/**
 * The HOMEAGENT_* environment overlay: values that win over stored ones, read once at open. It exists so a
 * container or a service unit can configure an LLM source and the API key without touching config.db.
 */

/** The source defined entirely by HOMEAGENT_LLM_* variables. */
const ENV_SOURCE = "env";

export interface EnvValue {
  value: string;
  /** The variable it came from, for messages ("change or unset it there"). */
  variable: string;
}

/** Config key → value from the environment. */
export type EnvOverlay = ReadonlyMap<string, EnvValue>;

export function envOverlay(env: Record<string, string | undefined>): EnvOverlay {
  const overlay = new Map<string, EnvValue>();
  // Empty counts as unset: an empty HOMEAGENT_API_KEY must not silently override a stored key and open the API.
  const put = (key: string, variable: string) => {
    const value = env[variable];
    if (value) overlay.set(key, { value, variable });
  };
  // Without a base URL the other variables describe nothing reachable; the source's adapter then falls back
  // to the template default, openai.
  if (env.HOMEAGENT_LLM_BASE_URL) {
    const k = (field: string) => `core.llm.sources.${ENV_SOURCE}.${field}`;
    put(k("base_url"), "HOMEAGENT_LLM_BASE_URL");
    put(k("api_key"), "HOMEAGENT_LLM_API_KEY");
    put(k("model"), "HOMEAGENT_LLM_MODEL");
    put(k("adapter"), "HOMEAGENT_LLM_ADAPTER");
  }
  put("core.daemon.api_key", "HOMEAGENT_API_KEY");
  // Containers and test runs choose the web UI's address without touching config.db ("127.0.0.1:0" = any free port).
  put("plugin.webui.listen_addr", "HOMEAGENT_WEBUI_ADDR");
  return overlay;
}
