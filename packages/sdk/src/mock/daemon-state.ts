/**
 * The daemon state a plugin can read and change, kept in memory by the mock SDK: the plugin's own settings,
 * the daemon-wide config entries the test lists, and the plugin list (enable and disable change a plugin's
 * state). It validates nothing beyond unknown names: the daemon does that.
 */
import { SdkError } from "../errors.js";
import type { ConfigEntry, PluginInfo, PluginSDK, SettingDef } from "../index.js";
import type { MockSDKOptions } from "./types.js";

/** `settings`, `config` and `pluginMgr` over what the test passed in `opts`; `name` is the plugin's own. */
export function daemonState(opts: MockSDKOptions, name: string): Pick<PluginSDK, "settings" | "config" | "pluginMgr"> {
  const ownSettings = new Map(Object.entries(opts.settings ?? {}));
  const defs = new Map<string, SettingDef>();
  const config: ConfigEntry[] = (opts.config ?? []).map((e) => ({
    type: "string",
    description: "",
    category: e.key.split(".")[1] ?? "",
    ...e,
  }));
  const plugins: PluginInfo[] = (opts.plugins ?? [pluginInfo(name)]).map((p) => ({ ...p }));
  const plugin = (target: string): PluginInfo => {
    const found = plugins.find((p) => p.name === target);
    if (!found) {
      throw new SdkError({ code: "plugin_not_found", message: `no plugin named "${target}"; pass it in \`plugins\`` });
    }
    return found;
  };

  return {
    settings: {
      get: (key) => ownSettings.get(key) ?? defs.get(key)?.default,
      set: (key, value) => void ownSettings.set(key, value),
      list: () => ({
        ...Object.fromEntries([...defs.values()].map((d) => [d.key, d.default])),
        ...Object.fromEntries(ownSettings),
      }),
      define: (list) => {
        for (const def of list) defs.set(def.key, def);
      },
    },
    config: {
      list: (prefix) => config.filter((e) => !prefix || e.key.startsWith(prefix)).map((e) => ({ ...e })),
      set: (key, value) => {
        const entry = config.find((e) => e.key === key);
        if (!entry) {
          throw new SdkError({ code: "config_unknown_key", message: `unknown config key ${key}` });
        }
        entry.value = value;
      },
      setMany: (changes) => {
        const unknown = Object.keys(changes).filter((key) => !config.some((e) => e.key === key));
        if (unknown.length > 0) {
          return { refused: Object.fromEntries(unknown.map((key) => [key, `unknown config key ${key}`])) };
        }
        for (const e of config) if (Object.hasOwn(changes, e.key)) e.value = changes[e.key];
        return { refused: {} };
      },
      defs: (prefix) => (opts.configDefs ?? []).filter((d) => !prefix || d.key.startsWith(prefix)),
    },
    pluginMgr: {
      list: () => plugins.map((p) => ({ ...p })),
      enable: async (target) => {
        plugin(target).state = "running";
      },
      disable: async (target) => {
        plugin(target).state = "disabled";
      },
      reload: async (target) => {
        const external = plugins.filter((p) => p.kind !== "builtin" && (target === undefined || p.name === target));
        if (target !== undefined && external.length === 0) {
          throw new SdkError({ code: "plugin_not_found", message: `no external plugin named "${target}"` });
        }
        return { reloaded: external.map((p) => p.name), unchanged: [], added: [], removed: [], failed: [] };
      },
      restart: async (target) => {
        const found = plugin(target);
        if (found.state === "disabled") {
          throw new SdkError({
            code: "plugin_disabled",
            message: `plugin "${target}" is disabled; enable it to start it`,
          });
        }
        found.state = "running";
        found.crashes = 0;
      },
    },
  };
}

function pluginInfo(name: string): PluginInfo {
  return {
    name,
    kind: "js",
    state: "running",
    health: "ok",
    capabilities: ["core"],
    critical: false,
    crashes: 0,
    restarts: 0,
  };
}
