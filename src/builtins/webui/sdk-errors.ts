/**
 * The HTTP status of every error code (the SDK's ErrorCode list), in one table that must name them all, so a
 * new code cannot reach a client without a deliberate status. The routes' own ApiErrors carry theirs; an
 * SdkError any other call raised is answered through this table (with Retry-After where waiting helps), and
 * an error that is no SdkError is no refusal: it ends as a 500 that names no internals.
 */
import { type ErrorCode, isErrorCode, SdkError } from "@homeagent/sdk";
import { ApiError } from "./context.js";

type ApiStatus = ApiError["status"];

/**
 * By whose fault and what helps: the request's (400, 404, 409, 413, …), the server's (500), a part it
 * depends on (502, 504), or a wait (503, 429).
 */
const STATUS_BY_CODE: Record<ErrorCode, ApiStatus> = {
  invalid_argument: 400,
  not_found: 404,
  too_large: 413,
  unavailable: 503,
  cancelled: 409,
  interrupted: 409,
  shutting_down: 503,
  internal_error: 500,

  config_invalid: 400,
  config_unknown_key: 400,
  config_env_override: 400,
  config_bad_definition: 400,
  config_unknown_source: 400,
  config_bad_name: 400,
  config_limit: 400,
  settings_refused: 400,

  auth_failed: 401,
  auth_rate_limited: 429,
  auth_busy: 503,
  auth_no_credentials: 503,
  auth_hash_failed: 500,

  input_empty: 400,
  input_cancelled: 409,
  invalid_history: 400,
  self_task_interrupted: 409,
  queue_full: 503,
  job_invalid: 500,
  tool_name_invalid: 500,
  tool_name_reserved: 500,
  tool_name_taken: 500,
  tool_failed: 400,
  tool_timeout: 504,
  stage_patch_invalid: 500,
  stage_patch_refused: 500,
  stage_timeout: 504,
  cleaner_timeout: 504,
  cleaner_bad_result: 500,

  channel_name_invalid: 500,
  channel_name_reserved: 500,
  channel_name_taken: 500,
  channel_not_found: 500,
  channel_limit: 500,
  channel_cleaner_invalid: 500,
  no_client: 409,
  approval_refused: 403,
  path_denied: 403,
  command_refused: 403,

  llm_auth: 502,
  llm_transient: 502,
  llm_fatal: 502,
  llm_aborted: 409,
  llm_context_too_long: 413,
  llm_first_byte_timeout: 504,
  llm_first_content_timeout: 504,
  llm_idle_timeout: 504,
  llm_call_timeout: 504,
  llm_bad_reply: 502,
  llm_adapter_request_failed: 500,
  llm_reply_too_large: 502,
  llm_unknown_model: 400,
  llm_unknown_source: 404,
  llm_no_source: 503,
  llm_all_failed: 502,
  stream_line_too_long: 502,
  body_too_large: 413,
  usage_file_invalid: 500,

  adapter_name_invalid: 400,
  adapter_not_found: 404,
  adapter_invalid: 422,
  adapter_busy: 503,
  adapter_io: 500,
  adapter_bundled: 409,
  adapter_in_use: 409,
  adapter_limit: 409,

  lua_error: 422,
  lua_timeout: 422,
  lua_worker: 500,
  lua_unavailable: 503,

  embedding_config: 500,
  embedding_unavailable: 503,
  embedding_invalid_data: 502,
  embedding_provider_name: 500,
  embedding_specification_version: 500,
  embedding_modality_unsupported: 415,
  reembed_failed: 500,
  invalid_filter: 400,

  memory_unavailable: 503,
  memory_bad_kind: 400,
  memory_bad_limit: 400,
  memory_bad_loop: 400,
  memory_unknown_loop: 400,
  memory_inconsistent: 500,
  memory_store_open: 500,
  memory_store_newer: 500,
  memory_store_backup: 500,
  context_invalid: 400,
  context_event_gone: 404,
  context_event_too_large: 413,
  doc_invalid: 400,
  doc_too_large: 413,
  textlog_dir: 500,
  textlog_read: 500,
  textlog_rewrite: 500,
  // Memory's refusals of what the request asked (too many recall keywords, a forget query that would match
  // everything, …): the client's to fix, not the server's failure.
  graph_bad_argument: 400,
  graph_not_found: 404,
  graph_limit: 400,
  forget_too_short: 400,
  forget_handler_timeout: 504,
  forget_handler_answer: 502,
  scrub_disk_full: 500,
  scrub_stopped: 503,
  scrub_failed: 500,

  knowledge_unavailable: 503,
  knowledge_name: 400,
  knowledge_tree_too_large: 500,
  invalid_path: 400,

  plugin_stopped: 503,
  // A built-in's call its capabilities do not allow is the daemon's bug, not the request's.
  capability_denied: 500,
  capability_unknown: 500,
  plugin_api_version: 500,
  plugin_load: 500,
  plugin_limit: 500,
  plugin_name_reserved: 500,
  plugin_name_taken: 500,
  plugin_start_timeout: 502,
  plugin_stop_timeout: 502,
  plugin_start_failed: 502,
  plugin_shutting_down: 503,
  plugin_not_found: 404,
  plugin_not_reloadable: 409,
  plugin_self_disable: 409,
  plugin_self_restart: 409,
  plugin_disabled: 409,
  plugin_mgr_unavailable: 503,

  plugin_spawn_failed: 502,
  plugin_handshake_failed: 502,
  plugin_handshake_timeout: 502,
  plugin_protocol_mismatch: 502,
  plugin_name_mismatch: 502,
  plugin_init_failed: 502,
  plugin_call_failed: 502,
  plugin_bad_answer: 502,
  subprocess_unsupported: 500,
  method_not_found: 500,
  invalid_params: 500,
  frame_too_large: 502,
  deadline: 504,
  peer_closed: 502,
  peer_not_reading: 502,
  rpc_busy: 503,
  rpc_failed: 502,

  cli_socket_in_use: 500,
  cli_socket_path_taken: 500,
  daemon_not_running: 503,
  daemon_refused: 502,
  api_key_rejected: 401,
  connection_closed: 502,
  bad_frame: 502,
  usage: 400,

  webui_listen_failed: 500,
  bad_request: 400,
  method_not_allowed: 405,
  unauthorized: 401,
  csrf_failed: 403,
  host_not_allowed: 403,
  invalid_json: 400,
  invalid_body: 400,
  invalid_multipart: 400,
  invalid_last_event_id: 400,
  unsupported_media_type: 415,
  unsupported_content_encoding: 415,
  message_too_large: 413,
  query_too_large: 413,
  code_too_large: 413,
  field_too_large: 413,
  upload_too_large: 413,
  upload_quota: 413,
  upload_busy: 429,
  too_many_connections: 503,
  request_timeout: 408,
  upload_name_taken: 409,
  client_msg_id_conflict: 409,
  sse_full: 503,
  sse_unavailable: 503,
  sse_overflow: 503,
  sse_stalled: 503,
  sse_revoked: 401,
  sse_disconnected: 409,
  chat_cancelled: 409,
  chat_stopped: 409,
  chat_timeout: 504,
  chat_failed: 502,
  timeout: 504,
  turn_failed: 502,
  invalid_messages: 400,
  too_many_messages: 400,
  invalid_type: 400,
  unsupported_value: 400,
  unsupported_content: 400,
  tools_not_supported: 400,
};

const RETRY_AFTER_S: Partial<Record<ErrorCode, number>> = { queue_full: 5, memory_unavailable: 5 };

/**
 * An error as the ApiError the client gets: an ApiError as it is, an SdkError with its code and message and
 * the status of STATUS_BY_CODE. Anything else is rethrown and ends as a 500.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (!(err instanceof SdkError)) throw err;
  // A code from outside the list (a JavaScript plugin can throw any string) is a fault, not an answer.
  if (!isErrorCode(err.code)) return new ApiError(500, "internal_error", err.message, { cause: err });
  const retryAfterS = (err as { retryAfterS?: unknown }).retryAfterS;
  return new ApiError(STATUS_BY_CODE[err.code], err.code, err.message, {
    cause: err,
    retryAfterS: typeof retryAfterS === "number" ? retryAfterS : RETRY_AFTER_S[err.code],
  });
}

/** Awaits an SDK call, answering its refusals as ApiErrors. */
export async function sdkCall<T>(call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toApiError(err);
  }
}
