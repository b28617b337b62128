-- DeepSeek chat completions adapter (https://api-docs.deepseek.com). OpenAI wire format plus:
-- `reasoning_content` in replies and streams, the `thinking` switch, and cache usage reported as
-- prompt_cache_hit_tokens / prompt_cache_miss_tokens. base_url: https://api.deepseek.com
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it.

local adapter = {
  name = "deepseek",
  version = "1",
  endpoint = "/chat/completions",
  headers = {},
}

local function non_empty(s) return type(s) == "string" and s ~= "" end

local function arguments_text(args)
  if type(args) == "table" then return json.encode(args) end
  if non_empty(args) then return args end
  return "{}"
end

local function wire_message(m)
  local out = json.object({ role = m.role, content = m.content or "" })
  if non_empty(m.tool_call_id) then out.tool_call_id = m.tool_call_id end
  if type(m.tool_calls) == "table" and #m.tool_calls > 0 then
    -- Thinking mode wants the reasoning of a tool-call round echoed back while the turn goes on;
    -- on any other message DeepSeek rejects reasoning_content with a 400.
    if non_empty(m.reasoning_content) then out.reasoning_content = m.reasoning_content end
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
  if req.disable_thinking == true then
    out.thinking = json.object({ type = "disabled" })
  elseif req.disable_thinking == false then
    out.thinking = json.object({ type = "enabled" })
  end
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
  local prompt = u.prompt_tokens or 0
  local completion = u.completion_tokens or 0
  local hit, miss = u.prompt_cache_hit_tokens, u.prompt_cache_miss_tokens
  local details = type(u.completion_tokens_details) == "table" and u.completion_tokens_details or {}
  return json.object({
    prompt = prompt,
    completion = completion,
    total = u.total_tokens or (prompt + completion),
    cache_read = hit or 0,
    cache_miss = miss or math.max(prompt - (hit or 0), 0),
    cache_reported = hit ~= nil or miss ~= nil,
    reasoning_tokens = details.reasoning_tokens or 0,
  })
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
    content = type(msg.content) == "string" and msg.content or "",
    reasoning_content = msg.reasoning_content or "",
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
      raw_arguments = fn.arguments or "",
      stream_index = tc.index or (i - 1),
    })
  end
  local content = type(delta.content) == "string" and delta.content or ""
  local reasoning = delta.reasoning_content or ""
  local usage = unified_usage(chunk.usage)
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
