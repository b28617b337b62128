/**
 * Capabilities: what a plugin may do beyond its own tools, stages, channels, settings and log. A plugin
 * declares the ones it needs (a built-in in its registration, an external plugin in plugin.json), and the
 * daemon refuses every SDK call outside them with an error naming the method and the missing capability.
 * Each PluginSDK member belongs to exactly one; the doc comment of each member says which.
 */
export const CAPABILITIES = [
  /** Own tools, stages, output channels, own settings, the log. Always granted. */
  "core",
  /** Injecting input and interrupts, i.e. talking to the agent as a user would. */
  "io",
  /** Reading long-term memory: graph recall, search, browsing the index, the timeline, stats. */
  "memory",
  /** Running memory's heartbeat loops on demand and forgetting (removing what matches from every layer). */
  "memory_admin",
  /** Reading memory documents (archived conversations, committed notes). */
  "doc_memory",
  /** Reading and writing the knowledge base. */
  "knowledge",
  /** Reading the raw conversation log. */
  "text_memory",
  /** Chatting with the configured LLM sources. */
  "llm",
  /** Switching the preferred LLM source or editing sources. */
  "llm_admin",
  /** Reading people and relations; writing them is for built-in plugins only. */
  "social",
  /** Subscribing to the event bus; publishing on it is for built-in plugins only. */
  "events",
  /** Reading and changing settings outside the plugin's own `plugin.<name>.*` namespace. */
  "settings_cross",
  /** Listing, enabling, disabling and installing plugins. */
  "plugin_mgr",
  /** Checking a client's API key against the daemon's. */
  "auth",
  /** Reading the daemon's status: queue, tools, LLM sources, plugins, embedding tier. */
  "kernel_status",
  /**
   * Offering an embedding provider. Once chosen, it is sent every text the daemon indexes (memory,
   * documents, knowledge), so this is granted explicitly rather than with `core`.
   */
  "embedding",
  /**
   * Stage patches that edit the arguments of, or drop, tool calls of other plugins' and the daemon's tools
   * (e.g. a guard that rewrites or removes risky calls). Without it a patch may add, edit or drop only calls
   * of the plugin's own tools: otherwise any plugin could rewrite what the model stores with memory_commit.
   * No capability lets a patch add a call of a tool that is not the plugin's own.
   */
  "tool_calls_any",
  /**
   * Being asked to forget (`onForget`): the plugin removes the user text it keeps for itself when the user
   * forgets something. Its handler is sent the forgotten text, so this is granted explicitly.
   */
  "forget_hook",
] as const;

export type Capability = (typeof CAPABILITIES)[number];
