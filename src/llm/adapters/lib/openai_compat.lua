-- The OpenAI chat-completions wire format, shared by the adapters of OpenAI-compatible providers (openai,
-- deepseek, mistral, groq, github, server): `local compat = import("openai_compat")`.
-- Edit freely: HomeAgent copies this file into <data>/adapters/lib/ once and never overwrites it, and a
-- change here applies to every adapter that imports it.
--
-- An adapter describes how its provider departs from OpenAI in a `quirks` table (every field optional;
-- leaving one out means "as OpenAI does"):
--
--   names            which messages keep their `name`: "all" (default), "tool" (only tool results) or "none"
--   reasoning_echo   when earlier reasoning_content is sent back: "always" (default), "tool_calls" (only on
--                    assistant turns that call tools) or "never"
--   include_usage    false: no stream_options.include_usage (providers that reject the field)
--   text_parts       false: a reply's content must be a string; a list of parts reads as ""
--   thinking_parts   true: {type="thinking", thinking={{type="text", text=...}}} content parts (Mistral's
--                    Magistral) are reasoning, not text
--   reasoning_fields the message fields that carry reasoning, first one set wins;
--                    default { "reasoning_content", "reasoning" }
--   usage            function(u, counts): adjusts the counts read from the usage object `u` the OpenAI way
--                    (fields prompt, completion, total, cache_read, cache_miss, reasoning_tokens; nil means
--                    not reported)
--   chunk_usage      function(chunk, choice) → the usage object of a stream chunk; default chunk.usage
--   error_message    function(body) → text, for error bodies other than OpenAI's {"error": {...}}
--   object_arguments true: streamed tool-call arguments may arrive as a JSON object rather than text

local compat = {}

local DEFAULT_REASONING_FIELDS = { "reasoning_content", "reasoning" }

local wire = import("wire")
local non_empty, parsed_arguments = wire.non_empty, wire.arguments_object
local function tbl(v) return type(v) == "table" and v or {} end

-- The unified request carries tool-call arguments as JSON text; tolerate an already-decoded object.
local function arguments_text(args)
  if type(args) == "table" then return json.encode(args) end
  if non_empty(args) then return args end
  return "{}"
end

local function calls_tools(m) return type(m.tool_calls) == "table" and #m.tool_calls > 0 end

local function echoes_reasoning(m, q)
  local echo = q.reasoning_echo or "always"
  return echo == "always" or (echo == "tool_calls" and calls_tools(m))
end

local function keeps_name(m, q)
  local names = q.names or "all"
  return names == "all" or (names == "tool" and m.role == "tool")
end

local function wire_message(m, q)
  local out = json.object({ role = m.role, content = m.content or "" })
  if non_empty(m.name) and keeps_name(m, q) then out.name = m.name end
  if non_empty(m.tool_call_id) then out.tool_call_id = m.tool_call_id end
  -- Reasoning servers (DeepSeek, vLLM) want the reasoning of earlier tool-call turns echoed back.
  if non_empty(m.reasoning_content) and echoes_reasoning(m, q) then out.reasoning_content = m.reasoning_content end
  if calls_tools(m) then
    out.tool_calls = json.array()
    for _, tc in ipairs(m.tool_calls) do
      local fn = tc["function"] or {}
      out.tool_calls[#out.tool_calls + 1] = json.object({
        id = tc.id,
        type = "function",
        ["function"] = json.object({ name = fn.name, arguments = arguments_text(fn.arguments) }),
      })
    end
  end
  return out
end

-- Completes the wire body `out` (which the adapter started, and may have added fields to) from the unified
-- request and returns it as JSON text. extra_body goes last so that it can override anything.
function compat.request(out, req, q)
  for _, m in ipairs(req.messages or {}) do
    out.messages[#out.messages + 1] = wire_message(m, q)
  end
  if type(req.tools) == "table" and #req.tools > 0 then
    out.tools = req.tools
    if non_empty(req.tool_choice) then out.tool_choice = req.tool_choice end
  end
  if req.temperature ~= nil then out.temperature = req.temperature end
  if req.max_tokens ~= nil then out.max_tokens = req.max_tokens end
  if req.stream then
    out.stream = true
    if q.include_usage ~= false then out.stream_options = json.object({ include_usage = true }) end
  end
  if type(req.extra_body) == "table" then
    for k, v in pairs(req.extra_body) do out[k] = v end
  end
  return json.encode(out)
end

-- The usage counts under OpenAI's names, for quirks.usage to start from.
local function openai_counts(u)
  return {
    prompt = u.prompt_tokens or 0,
    completion = u.completion_tokens or 0,
    total = u.total_tokens,
    cache_read = tbl(u.prompt_tokens_details).cached_tokens,
    reasoning_tokens = tbl(u.completion_tokens_details).reasoning_tokens,
  }
end

local function unified_usage(u, q)
  if type(u) ~= "table" then return json.null end
  local c = openai_counts(u)
  if q.usage then q.usage(u, c) end
  return json.object({
    prompt = c.prompt,
    completion = c.completion,
    total = c.total or (c.prompt + c.completion),
    cache_read = c.cache_read or 0,
    cache_miss = c.cache_miss or math.max(c.prompt - (c.cache_read or 0), 0),
    -- Tells "0 % cache hits" from "the provider says nothing about its cache".
    cache_reported = c.cache_read ~= nil or c.cache_miss ~= nil,
    reasoning_tokens = c.reasoning_tokens or 0,
  })
end

-- Content is a string or, from some servers, a list of parts of which only the text ones matter.
-- Returns the text and the reasoning found in thinking parts.
local function split_content(content, q)
  if type(content) == "string" then return content, "" end
  if type(content) ~= "table" or q.text_parts == false then return "", "" end
  local text, thinking = {}, {}
  for _, part in ipairs(content) do
    if type(part) == "table" and q.thinking_parts and part.type == "thinking" and type(part.thinking) == "table" then
      for _, t in ipairs(part.thinking) do
        if type(t) == "table" and type(t.text) == "string" then thinking[#thinking + 1] = t.text end
      end
    elseif type(part) == "table" and type(part.text) == "string" then
      text[#text + 1] = part.text
    end
  end
  return table.concat(text), table.concat(thinking)
end

-- A reply message or stream delta → its text and its reasoning.
local function text_and_reasoning(msg, q)
  local text, thinking = split_content(msg.content, q)
  for _, field in ipairs(q.reasoning_fields or DEFAULT_REASONING_FIELDS) do
    if msg[field] then return text, msg[field] end
  end
  return text, thinking
end

local function raise_api_error(decoded, q)
  if type(decoded.error) == "table" then
    error("provider error: " .. tostring(decoded.error.message or json.encode(decoded.error)), 0)
  end
  local message = q.error_message and q.error_message(decoded)
  if message then error("provider error: " .. message, 0) end
end

function compat.response(body, q)
  local resp = json.decode(body)
  if type(resp) ~= "table" then error("response is not a JSON object", 0) end
  raise_api_error(resp, q)
  local choice = type(resp.choices) == "table" and resp.choices[1]
  if type(choice) ~= "table" then error("response has no choices", 0) end
  local msg = choice.message or {}
  local calls = json.array()
  for _, tc in ipairs(msg.tool_calls or {}) do
    local fn = tc["function"] or {}
    local args, raw = parsed_arguments(fn.arguments)
    calls[#calls + 1] = json.object({ id = tc.id or "", name = fn.name or "", arguments = args, raw_arguments = raw })
  end
  local text, reasoning = text_and_reasoning(msg, q)
  return json.encode({
    content = text,
    reasoning_content = reasoning,
    finish_reason = choice.finish_reason or "",
    token_usage = unified_usage(resp.usage, q),
    tool_calls = calls,
  })
end

local function chunk_usage(chunk) return chunk.usage end

function compat.stream_chunk(line, q)
  local chunk = json.decode((line:gsub("^data:%s*", "")))
  if type(chunk) ~= "table" then return "" end
  raise_api_error(chunk, q)
  local choice = type(chunk.choices) == "table" and chunk.choices[1] or {}
  local delta = choice.delta or {}
  local calls = json.array()
  for i, tc in ipairs(delta.tool_calls or {}) do
    local fn = tc["function"] or {}
    local args = fn.arguments
    if q.object_arguments and type(args) == "table" then args = json.encode(args) end
    calls[#calls + 1] = json.object({
      id = tc.id or "",
      name = fn.name or "",
      raw_arguments = args or "",
      -- Fragments of one call share the upstream index; servers that drop it send each call whole.
      stream_index = tc.index or (i - 1),
    })
  end
  local content, reasoning = text_and_reasoning(delta, q)
  local usage = unified_usage((q.chunk_usage or chunk_usage)(chunk, choice), q)
  if content == "" and reasoning == "" and #calls == 0 and choice.finish_reason == nil and usage == json.null then
    return ""
  end
  return json.encode({
    content = content,
    reasoning_content = reasoning,
    done = false,
    finish_reason = choice.finish_reason,
    usage = usage,
    tool_calls = calls,
  })
end

-- The adapter table: `fields` (name, version, and endpoint, headers, auth, ... where they differ from
-- OpenAI's) with the three transforms for these quirks. An adapter that adds fields to the request body
-- replaces transform_request with its own, built on compat.request (as openai.lua does).
function compat.adapter(fields, q)
  q = q or {}
  fields.endpoint = fields.endpoint or "/chat/completions"
  fields.headers = fields.headers or {}
  function fields.transform_request(body)
    local req = json.decode(body)
    return compat.request(json.object({ model = req.model, messages = json.array() }), req, q)
  end
  function fields.transform_response(body) return compat.response(body, q) end
  function fields.transform_stream_chunk(line) return compat.stream_chunk(line, q) end
  return fields
end

return compat
