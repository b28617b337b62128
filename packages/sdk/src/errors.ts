/**
 * The one list of error codes, and SdkError, the error that carries one. Everything the daemon and this SDK
 * throw is an SdkError (the daemon's own HomeAgentError extends it), so a plugin, the web UI or a test tells
 * failures apart by `err.code` — a member of ErrorCode, checked by the compiler — never by parsing a
 * message; the original error stays reachable as the standard `cause`.
 */

export const ERROR_CODES = [
  // Any area: a refused argument, a missing thing, a bound, a stopped or cancelled operation, a broken
  // contract between the daemon's own parts (a bug: the daemon log has the details).
  "invalid_argument",
  "not_found",
  "too_large",
  "unavailable",
  "cancelled",
  "interrupted",
  "shutting_down",
  "internal_error",
  // Settings (config center).
  "config_invalid",
  "config_unknown_key",
  "config_env_override",
  "config_bad_definition",
  "config_unknown_source",
  "config_bad_name",
  "config_limit",
  "settings_refused",
  // Logins, sessions and API keys.
  "auth_failed",
  "auth_rate_limited",
  "auth_busy",
  "auth_no_credentials",
  "auth_hash_failed",
  // Inputs, tools, stages and jobs of the kernel.
  "input_empty",
  "input_cancelled",
  "invalid_history",
  "self_task_interrupted",
  "queue_full",
  "job_invalid",
  "tool_name_invalid",
  "tool_name_reserved",
  "tool_name_taken",
  "tool_timeout",
  "tool_failed",
  "stage_patch_invalid",
  "stage_patch_refused",
  "stage_timeout",
  "cleaner_timeout",
  "cleaner_bad_result",
  // Input and output channels.
  "channel_name_invalid",
  "channel_name_reserved",
  "channel_name_taken",
  "channel_not_found",
  "channel_limit",
  "channel_cleaner_invalid",
  // Unprompted delivery and approvals: nobody connected to a channel; an answer or question refused.
  "no_client",
  "approval_refused",
  // The agent's hands on the machine: a path outside what the tool may reach, a command refused by policy.
  "path_denied",
  "command_refused",
  // LLM calls: `llm_<kind>` of a failed call, `llm_<limit>_timeout` of a call too slow.
  "llm_auth",
  "llm_transient",
  "llm_fatal",
  "llm_aborted",
  "llm_context_too_long",
  "llm_first_byte_timeout",
  "llm_first_content_timeout",
  "llm_idle_timeout",
  "llm_call_timeout",
  "llm_bad_reply",
  "llm_adapter_request_failed",
  "llm_reply_too_large",
  "llm_unknown_model",
  "llm_unknown_source",
  "llm_no_source",
  "llm_all_failed",
  "stream_line_too_long",
  "body_too_large",
  "usage_file_invalid",
  // LLM provider adapters (Lua scripts).
  "adapter_name_invalid",
  "adapter_not_found",
  "adapter_invalid",
  "adapter_busy",
  "adapter_io",
  "adapter_bundled",
  "adapter_in_use",
  "adapter_limit",
  // The Lua sandbox.
  "lua_error",
  "lua_timeout",
  "lua_worker",
  "lua_unavailable",
  // Embedding providers and the search engine.
  "embedding_config",
  "embedding_unavailable",
  "embedding_invalid_data",
  "embedding_provider_name",
  "embedding_specification_version",
  "embedding_modality_unsupported",
  "reembed_failed",
  "invalid_filter",
  // Memory: the store, the context window, documents, the graph, forgetting.
  "memory_unavailable",
  "memory_bad_kind",
  "memory_bad_limit",
  "memory_bad_loop",
  "memory_unknown_loop",
  "memory_inconsistent",
  "memory_store_open",
  "memory_store_newer",
  "memory_store_backup",
  "context_invalid",
  "context_event_gone",
  "context_event_too_large",
  "doc_invalid",
  "doc_too_large",
  "textlog_dir",
  "textlog_read",
  "textlog_rewrite",
  "graph_bad_argument",
  "graph_not_found",
  "graph_limit",
  "forget_too_short",
  "forget_handler_timeout",
  "forget_handler_answer",
  "scrub_disk_full",
  "scrub_stopped",
  "scrub_failed",
  // The knowledge base.
  "knowledge_unavailable",
  "knowledge_name",
  "knowledge_tree_too_large",
  "invalid_path",
  // Plugins: loading, starting, the SDK's capabilities, management.
  "plugin_stopped",
  "capability_denied",
  "capability_unknown",
  "plugin_api_version",
  "plugin_load",
  "plugin_limit",
  "plugin_name_reserved",
  "plugin_name_taken",
  "plugin_start_timeout",
  "plugin_stop_timeout",
  "plugin_start_failed",
  "plugin_shutting_down",
  "plugin_not_found",
  "plugin_not_reloadable",
  "plugin_self_disable",
  "plugin_self_restart",
  "plugin_disabled",
  "plugin_mgr_unavailable",
  // Subprocess plugins: launching one, calling it, and the JSON-RPC protocol between it and the daemon.
  "plugin_spawn_failed",
  "plugin_handshake_failed",
  "plugin_handshake_timeout",
  "plugin_protocol_mismatch",
  "plugin_name_mismatch",
  "plugin_init_failed",
  "plugin_call_failed",
  "plugin_bad_answer",
  "subprocess_unsupported",
  "method_not_found",
  "invalid_params",
  "frame_too_large",
  "deadline",
  "peer_closed",
  "peer_not_reading",
  "rpc_busy",
  "rpc_failed",
  // The cli socket and the waiter (the terminal client).
  "cli_socket_in_use",
  "cli_socket_path_taken",
  "daemon_not_running",
  "daemon_refused",
  "api_key_rejected",
  "connection_closed",
  "bad_frame",
  "usage",
  // The web UI's HTTP API (and its OpenAI-compatible routes).
  "webui_listen_failed",
  "bad_request",
  "method_not_allowed",
  "unauthorized",
  "csrf_failed",
  "host_not_allowed",
  "too_many_connections",
  "request_timeout",
  "invalid_json",
  "invalid_body",
  "invalid_multipart",
  "invalid_last_event_id",
  "unsupported_media_type",
  "unsupported_content_encoding",
  "message_too_large",
  "query_too_large",
  "code_too_large",
  "field_too_large",
  "upload_too_large",
  "upload_quota",
  "upload_busy",
  "upload_name_taken",
  "client_msg_id_conflict",
  "sse_full",
  "sse_unavailable",
  "sse_overflow",
  "sse_stalled",
  "sse_revoked",
  "sse_disconnected",
  "chat_cancelled",
  "chat_stopped",
  "chat_timeout",
  "chat_failed",
  "timeout",
  "turn_failed",
  "invalid_messages",
  "too_many_messages",
  "invalid_type",
  "unsupported_value",
  "unsupported_content",
  "tools_not_supported",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** Whether `value` is one of ERROR_CODES (e.g. a code that came over the wire). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && KNOWN_CODES.has(value);
}

export interface SdkErrorOptions {
  code: ErrorCode;
  /** For people: what went wrong and, where they can act, what to do next. */
  message: string;
  /** The error underneath, kept as the standard `Error.cause`. */
  cause?: unknown;
}

export class SdkError extends Error {
  readonly code: ErrorCode;

  constructor({ code, message, cause }: SdkErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
  }
}
