-- Generic OpenAI-compatible gateway adapter (LiteLLM, OpenRouter, one-api, zen-style proxies, ...).
-- Gateways relay many upstream providers and pass their usage through in whichever shape the upstream
-- used, so this adapter normalises every known variant: OpenAI prompt_tokens_details.cached_tokens,
-- DeepSeek prompt_cache_hit/miss_tokens, Anthropic cache_read/cache_creation_input_tokens, and
-- input/output_tokens naming. base_url: the gateway's OpenAI base, e.g. http://127.0.0.1:4000/v1
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it.

local adapter = {
  name = "server",
  version = "1",
  endpoint = "/chat/completions",
  headers = {},
}

local function non_empty(s) return type(s) == "string" and s ~= "" end
local function tbl(v) return type(v) == "table" and v or {} end

local function arguments_text(args)
  if type(args) == "table" then return json.encode(args) end
  if non_empty(args) then return args end
  return "{}"
end

local function wire_message(m)
  local out = json.object({ role = m.role, content = m.content or "" })
  if non_empty(m.name) then out.name = m.name end
  if non_empty(m.tool_call_id) then out.tool_call_id = m.tool_call_id end
  if non_empty(m.reasoning_content) then out.reasoning_content = m.reasoning_content end
  if type(m.tool_calls) == "table" and #m.tool_calls > 0 then
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

function adapter.transform_request(body)
  local req = json.decode(body)
  local out = json.object({ model = req.model, messages = json.array() })
  for _, m in ipairs(req.messages or {}) do
    out.messages[#out.messages + 1] = wire_message(m)
  end
  if type(req.tools) == "table" and #req.tools > 0 then
    out.tools = req.tools
    if non_empty(req.tool_choice) then out.tool_choice = req.tool_choice end
  end
  if req.temperature ~= nil then out.temperature = req.temperature end
  if req.max_tokens ~= nil then out.max_tokens = req.max_tokens end
  if req.stream then
    out.stream = true
    out.stream_options = json.object({ include_usage = true })
  end
  if type(req.extra_body) == "table" then
    for k, v in pairs(req.extra_body) do out[k] = v end
  end
  return json.encode(out)
end

local function unified_usage(u)
  if type(u) ~= "table" then return json.null end
  local details = tbl(u.prompt_tokens_details or u.input_tokens_details)
  local hit = details.cached_tokens or u.prompt_cache_hit_tokens or u.cache_read_input_tokens
  local miss = u.prompt_cache_miss_tokens
  local prompt = u.prompt_tokens
  if prompt == nil then
    -- Anthropic-style input_tokens leaves out what was read from or written to the cache.
    prompt = (u.input_tokens or 0) + (u.cache_read_input_tokens or 0) + (u.cache_creation_input_tokens or 0)
  end
  local completion = u.completion_tokens or u.output_tokens or 0
  local completion_details = tbl(u.completion_tokens_details or u.output_tokens_details)
  return json.object({
    prompt = prompt,
    completion = completion,
    total = u.total_tokens or (prompt + completion),
    cache_read = hit or 0,
    cache_miss = miss or math.max(prompt - (hit or 0), 0),
    cache_reported = hit ~= nil or miss ~= nil,
    reasoning_tokens = completion_details.reasoning_tokens or u.reasoning_tokens or 0,
  })
end

local function text_of(content)
  if type(content) == "string" then return content end
  local parts = {}
  for _, part in ipairs(tbl(content)) do
    if type(part) == "table" and type(part.text) == "string" then parts[#parts + 1] = part.text end
  end
  return table.concat(parts)
end

local function parsed_arguments(raw)
  if type(raw) == "table" then return raw, nil end
  if not non_empty(raw) then return json.object(), nil end
  local ok, value = pcall(json.decode, raw)
  if ok and type(value) == "table" and getmetatable(value).__jsontype == "object" then return value, nil end
  return json.object(), raw
end

local function raise_api_error(decoded)
  if type(decoded.error) == "table" then
    error("provider error: " .. tostring(decoded.error.message or json.encode(decoded.error)), 0)
  end
  if non_empty(decoded.error) then error("provider error: " .. decoded.error, 0) end
end

function adapter.transform_response(body)
  local resp = json.decode(body)
  if type(resp) ~= "table" then error("response is not a JSON object", 0) end
  raise_api_error(resp)
  local choice = type(resp.choices) == "table" and resp.choices[1]
  if type(choice) ~= "table" then error("response has no choices", 0) end
  local msg = choice.message or {}
  local calls = json.array()
  for _, tc in ipairs(msg.tool_calls or {}) do
    local fn = tc["function"] or {}
    local args, raw = parsed_arguments(fn.arguments)
    calls[#calls + 1] = json.object({ id = tc.id or "", name = fn.name or "", arguments = args, raw_arguments = raw })
  end
  return json.encode({
    content = text_of(msg.content),
    reasoning_content = msg.reasoning_content or msg.reasoning or "",
    finish_reason = choice.finish_reason or "",
    token_usage = unified_usage(resp.usage),
    tool_calls = calls,
  })
end

function adapter.transform_stream_chunk(line)
  local chunk = json.decode((line:gsub("^data:%s*", "")))
  if type(chunk) ~= "table" then return "" end
  raise_api_error(chunk)
  local choice = type(chunk.choices) == "table" and chunk.choices[1] or {}
  local delta = choice.delta or {}
  local calls = json.array()
  for i, tc in ipairs(delta.tool_calls or {}) do
    local fn = tc["function"] or {}
    calls[#calls + 1] = json.object({
      id = tc.id or "",
      name = fn.name or "",
      raw_arguments = type(fn.arguments) == "table" and json.encode(fn.arguments) or fn.arguments or "",
      -- Fragments of one call share the upstream index; gateways that drop it send each call whole.
      stream_index = tc.index or (i - 1),
    })
  end
  local content = text_of(delta.content)
  local reasoning = delta.reasoning_content or delta.reasoning or ""
  -- Some gateways put usage on the final choice instead of the chunk.
  local usage = unified_usage(chunk.usage or choice.usage)
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

return adapter
