-- Ollama native chat API adapter (POST /api/chat, NDJSON streaming). base_url: http://127.0.0.1:11434
-- No API key. Maps HomeAgent's unified request/response/chunk JSON to Ollama's messages and stream lines.
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it.

local adapter = {
  name = "ollama",
  version = "1",
  endpoint = "/api/chat",
  auth = "none",
  stream_format = "ndjson",
  headers = {},
}

local wire = import("wire")
-- Ollama takes and returns tool-call arguments as objects, not JSON text.
local non_empty, is_object, args_object = wire.non_empty, wire.is_object, wire.arguments_object

local function wire_messages(messages)
  local out, names = json.array(), {}
  for _, m in ipairs(messages or {}) do
    local msg = json.object({ role = m.role, content = m.content or "" })
    if m.role == "tool" then
      local name = names[m.tool_call_id] or m.name
      if non_empty(name) then msg.tool_name = name end
    end
    if type(m.tool_calls) == "table" and #m.tool_calls > 0 then
      msg.tool_calls = json.array()
      for _, tc in ipairs(m.tool_calls) do
        local fn = tc["function"] or {}
        names[tc.id] = fn.name
        msg.tool_calls[#msg.tool_calls + 1] = json.object({
          ["function"] = json.object({ name = fn.name, arguments = args_object(fn.arguments) }),
        })
      end
    end
    out[#out + 1] = msg
  end
  return out
end

function adapter.transform_request(body)
  local req = json.decode(body)
  -- Ollama streams unless told otherwise, so `stream` is always sent.
  local out = json.object({ model = req.model, messages = wire_messages(req.messages), stream = req.stream == true })
  -- Ollama has no tool_choice; "none" is honoured by not offering the tools.
  if type(req.tools) == "table" and #req.tools > 0 and req.tool_choice ~= "none" then out.tools = req.tools end
  local options = json.object()
  if req.max_tokens ~= nil then options.num_predict = req.max_tokens end
  if req.temperature ~= nil then options.temperature = req.temperature end
  if next(options) then out.options = options end
  if req.disable_thinking then out.think = false end
  -- Object values merge one level deep, so extra_body = { options = { num_ctx = 8192 } } keeps the rest.
  if type(req.extra_body) == "table" then
    for k, v in pairs(req.extra_body) do
      if is_object(v) and is_object(out[k]) then
        for k2, v2 in pairs(v) do out[k][k2] = v2 end
      else
        out[k] = v
      end
    end
  end
  return json.encode(out)
end

-- Ollama says nothing about prompt caching: cache_reported stays false ("unknown", not "0 % hits").
local function unified_usage(resp)
  if resp.prompt_eval_count == nil and resp.eval_count == nil then return json.null end
  local prompt, completion = resp.prompt_eval_count or 0, resp.eval_count or 0
  return json.object({
    prompt = prompt,
    completion = completion,
    total = prompt + completion,
    cache_read = 0,
    cache_miss = 0,
    cache_reported = false,
    reasoning_tokens = 0,
  })
end

local function finish_reason(resp, had_calls)
  if resp.done ~= true then return nil end
  if resp.done_reason == "length" then return "length" end
  return had_calls and "tool_calls" or "stop"
end

local function raise_api_error(decoded)
  if decoded.error ~= nil then error("provider error: " .. tostring(decoded.error), 0) end
end

-- Ollama sends no call ids (unless a newer version does): derive one from position, name and arguments,
-- so that it is the same however often the reply is parsed and rarely repeats across turns.
local function calls_of(message, first_index)
  local calls = {}
  for i, tc in ipairs(message.tool_calls or {}) do
    local fn = tc["function"] or {}
    local index = first_index + i - 1
    local args = args_object(fn.arguments)
    local id = tc.id
    if not non_empty(id) then id = wire.call_id(index, fn.name, args) end
    calls[#calls + 1] = { id = id, name = fn.name or "", args = args, index = index }
  end
  return calls
end

function adapter.transform_response(body)
  local resp = json.decode(body)
  if type(resp) ~= "table" then error("response is not a JSON object", 0) end
  raise_api_error(resp)
  if type(resp.message) ~= "table" then error("response has no message", 0) end
  local calls = json.array()
  for _, c in ipairs(calls_of(resp.message, 0)) do
    calls[#calls + 1] = json.object({ id = c.id, name = c.name, arguments = c.args })
  end
  return json.encode({
    content = resp.message.content or "",
    reasoning_content = resp.message.thinking or "",
    finish_reason = finish_reason(resp, #calls > 0) or "",
    token_usage = unified_usage(resp),
    tool_calls = calls,
  })
end

-- Per stream: calls arrive in an earlier line than `done`, and are numbered across lines.
local stream_calls = 0

function adapter.begin_stream() stream_calls = 0 end

function adapter.transform_stream_chunk(line)
  local resp = json.decode(line)
  if type(resp) ~= "table" then return "" end
  raise_api_error(resp)
  local message = type(resp.message) == "table" and resp.message or {}
  local calls = json.array()
  for _, c in ipairs(calls_of(message, stream_calls)) do
    calls[#calls + 1] = json.object({ id = c.id, name = c.name, raw_arguments = json.encode(c.args), stream_index = c.index })
  end
  stream_calls = stream_calls + #calls
  return json.encode({
    content = message.content or "",
    reasoning_content = message.thinking or "",
    done = resp.done == true,
    finish_reason = finish_reason(resp, stream_calls > 0),
    usage = unified_usage(resp),
    tool_calls = calls,
  })
end

return adapter
