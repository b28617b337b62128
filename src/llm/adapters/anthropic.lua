-- Anthropic Messages API adapter (POST /v1/messages). base_url: https://api.anthropic.com
-- Maps HomeAgent's unified request/response/chunk JSON to Anthropic's content blocks and SSE events.
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it.

local adapter = {
  name = "anthropic",
  version = "1",
  endpoint = "/v1/messages",
  auth = "x-api-key",
  headers = { ["anthropic-version"] = "2023-06-01" },
}

-- Anthropic requires max_tokens; this is used when the request sets none.
local DEFAULT_MAX_TOKENS = 4096

local STOP_REASONS = {
  end_turn = "stop",
  stop_sequence = "stop",
  tool_use = "tool_calls",
  max_tokens = "length",
  refusal = "content_filter",
}

local wire = import("wire")
-- Tool-call arguments arrive as JSON text; Anthropic wants the input object itself.
local non_empty, input_object = wire.non_empty, wire.arguments_object

local function assistant_message(m)
  local content = json.array()
  if non_empty(m.content) then content[#content + 1] = json.object({ type = "text", text = m.content }) end
  for _, tc in ipairs(m.tool_calls or {}) do
    local fn = tc["function"] or {}
    content[#content + 1] = json.object({
      type = "tool_use", id = tc.id, name = fn.name, input = input_object(fn.arguments),
    })
  end
  return json.object({ role = "assistant", content = content })
end

-- System text goes to the top-level `system` field; tool results become user `tool_result` blocks, and
-- consecutive results share one user message (the API wants all results of a turn together).
local function wire_messages(messages)
  local system, out = {}, json.array()
  local results -- content of the user message that collects the current run of tool results
  for _, m in ipairs(messages or {}) do
    if m.role == "system" then
      if non_empty(m.content) then system[#system + 1] = m.content end
    elseif m.role == "tool" then
      if not results then
        results = json.array()
        out[#out + 1] = json.object({ role = "user", content = results })
      end
      results[#results + 1] = json.object({ type = "tool_result", tool_use_id = m.tool_call_id, content = m.content or "" })
    elseif m.role == "assistant" then
      -- Anthropic rejects empty text blocks; an empty assistant turn carries nothing anyway.
      if non_empty(m.content) or (type(m.tool_calls) == "table" and #m.tool_calls > 0) then
        out[#out + 1] = assistant_message(m)
        results = nil
      end
    else
      out[#out + 1] = json.object({ role = "user", content = m.content or "" })
      results = nil
    end
  end
  return table.concat(system, "\n\n"), out
end

function adapter.transform_request(body)
  local req = json.decode(body)
  local system, messages = wire_messages(req.messages)
  local out = json.object({
    model = req.model,
    max_tokens = req.max_tokens or DEFAULT_MAX_TOKENS,
    messages = messages,
  })
  if system ~= "" then out.system = system end
  if type(req.tools) == "table" and #req.tools > 0 then
    out.tools = json.array()
    for _, t in ipairs(req.tools) do
      local fn = t["function"] or {}
      out.tools[#out.tools + 1] = json.object({
        name = fn.name, description = fn.description or "", input_schema = fn.parameters or json.object({ type = "object" }),
      })
    end
    if non_empty(req.tool_choice) then out.tool_choice = json.object({ type = req.tool_choice }) end
  end
  if req.temperature ~= nil then out.temperature = req.temperature end
  if req.stream then out.stream = true end
  -- Extended thinking is off unless asked for, e.g. extra_body = { thinking = { type = "enabled", budget_tokens = 2048 } }.
  if type(req.extra_body) == "table" then
    for k, v in pairs(req.extra_body) do out[k] = v end
  end
  return json.encode(out)
end

-- input_tokens excludes cached input; the prompt is the sum of all three. Cache creation is a miss.
local function unified_usage(u)
  if type(u) ~= "table" then return json.null end
  local read, created = u.cache_read_input_tokens, u.cache_creation_input_tokens
  local prompt = (u.input_tokens or 0) + (read or 0) + (created or 0)
  local completion = u.output_tokens or 0
  return json.object({
    prompt = prompt,
    completion = completion,
    total = prompt + completion,
    cache_read = read or 0,
    cache_miss = prompt - (read or 0),
    cache_reported = read ~= nil or created ~= nil,
    reasoning_tokens = 0,
  })
end

local function raise_api_error(decoded)
  if decoded.type == "error" or type(decoded.error) == "table" then
    local e = decoded.error or {}
    error("provider error: " .. tostring(e.message or json.encode(decoded)), 0)
  end
end

function adapter.transform_response(body)
  local resp = json.decode(body)
  if type(resp) ~= "table" then error("response is not a JSON object", 0) end
  raise_api_error(resp)
  if type(resp.content) ~= "table" then error("response has no content", 0) end
  local text, thinking, calls = {}, {}, json.array()
  for _, block in ipairs(resp.content) do
    if block.type == "text" then
      text[#text + 1] = block.text or ""
    elseif block.type == "thinking" then
      thinking[#thinking + 1] = block.thinking or ""
    elseif block.type == "tool_use" then
      calls[#calls + 1] = json.object({ id = block.id or "", name = block.name or "", arguments = input_object(block.input) })
    end
  end
  return json.encode({
    content = table.concat(text),
    reasoning_content = table.concat(thinking),
    finish_reason = STOP_REASONS[resp.stop_reason] or resp.stop_reason or "",
    token_usage = unified_usage(resp.usage),
    tool_calls = calls,
  })
end

-- Streams report the input side of the usage in message_start and the output side in message_delta.
local stream_input

function adapter.begin_stream() stream_input = nil end

local function chunk(fields)
  local out = json.object({ content = "", reasoning_content = "", done = false, tool_calls = json.array() })
  for k, v in pairs(fields) do out[k] = v end
  return json.encode(out)
end

function adapter.transform_stream_chunk(payload)
  local event = json.decode(payload)
  if type(event) ~= "table" then return "" end
  raise_api_error(event)
  local kind = event.type
  if kind == "message_start" then
    stream_input = (event.message or {}).usage
  elseif kind == "content_block_start" then
    local block = event.content_block or {}
    if block.type == "tool_use" then
      return chunk({ tool_calls = json.array({ json.object({
        id = block.id or "", name = block.name or "", raw_arguments = "", stream_index = event.index or 0,
      }) }) })
    elseif block.type == "text" and non_empty(block.text) then
      return chunk({ content = block.text })
    end
  elseif kind == "content_block_delta" then
    local delta = event.delta or {}
    if delta.type == "text_delta" then
      return chunk({ content = delta.text or "" })
    elseif delta.type == "thinking_delta" then
      return chunk({ reasoning_content = delta.thinking or "" })
    elseif delta.type == "input_json_delta" then
      return chunk({ tool_calls = json.array({ json.object({
        id = "", name = "", raw_arguments = delta.partial_json or "", stream_index = event.index or 0,
      }) }) })
    end
  elseif kind == "message_delta" then
    local usage = json.object()
    for k, v in pairs(stream_input or {}) do usage[k] = v end
    for k, v in pairs(event.usage or {}) do usage[k] = v end
    local stop = (event.delta or {}).stop_reason
    return chunk({ finish_reason = STOP_REASONS[stop] or stop, usage = unified_usage(usage) })
  elseif kind == "message_stop" then
    return chunk({ done = true })
  end
  -- ping, content_block_stop, signature_delta: nothing to report.
  return ""
end

return adapter
