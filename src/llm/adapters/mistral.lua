-- Mistral chat completions adapter (https://docs.mistral.ai/api). OpenAI-like wire format, but the API
-- rejects fields it does not know (no stream_options, no echoed reasoning), always reports usage in the
-- last stream chunk, and Magistral models send their thinking as typed content parts.
-- base_url: https://api.mistral.ai/v1
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it.

local adapter = {
  name = "mistral",
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
  if non_empty(m.name) and m.role == "tool" then out.name = m.name end
  if non_empty(m.tool_call_id) then out.tool_call_id = m.tool_call_id end
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
  if req.stream then out.stream = true end
  if type(req.extra_body) == "table" then
    for k, v in pairs(req.extra_body) do out[k] = v end
  end
  return json.encode(out)
end

local function unified_usage(u)
  if type(u) ~= "table" then return json.null end
  local prompt = u.prompt_tokens or 0
  local completion = u.completion_tokens or 0
  local details = type(u.prompt_tokens_details) == "table" and u.prompt_tokens_details or {}
  local cached = details.cached_tokens
  return json.object({
    prompt = prompt,
    completion = completion,
    total = u.total_tokens or (prompt + completion),
    cache_read = cached or 0,
    cache_miss = math.max(prompt - (cached or 0), 0),
    cache_reported = cached ~= nil,
    reasoning_tokens = 0,
  })
end

-- Content is a string, or a list of parts: {type="text", text=...} and, from Magistral,
-- {type="thinking", thinking={{type="text", text=...}}}. Returns the text and the reasoning.
local function split_content(content)
  if type(content) == "string" then return content, "" end
  if type(content) ~= "table" then return "", "" end
  local text, thinking = {}, {}
  for _, part in ipairs(content) do
    if type(part) == "table" and part.type == "thinking" and type(part.thinking) == "table" then
      for _, t in ipairs(part.thinking) do
        if type(t) == "table" and type(t.text) == "string" then thinking[#thinking + 1] = t.text end
      end
    elseif type(part) == "table" and type(part.text) == "string" then
      text[#text + 1] = part.text
    end
  end
  return table.concat(text), table.concat(thinking)
end

local function parsed_arguments(raw)
  if type(raw) == "table" then return raw, nil end
  if not non_empty(raw) then return json.object(), nil end
  local ok, value = pcall(json.decode, raw)
  if ok and type(value) == "table" and getmetatable(value).__jsontype == "object" then return value, nil end
  return json.object(), raw
end

-- Mistral errors come as {"object":"error","message":...} as well as OpenAI's {"error":{...}}.
local function raise_api_error(decoded)
  if type(decoded.error) == "table" then
    error("provider error: " .. tostring(decoded.error.message or json.encode(decoded.error)), 0)
  end
  if decoded.object == "error" then error("provider error: " .. tostring(decoded.message), 0) end
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
  local text, reasoning = split_content(msg.content)
  return json.encode({
    content = text,
    reasoning_content = reasoning,
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
      -- Mistral sends each call whole, sometimes with arguments already decoded.
      raw_arguments = type(fn.arguments) == "table" and json.encode(fn.arguments) or fn.arguments or "",
      stream_index = tc.index or (i - 1),
    })
  end
  local content, reasoning = split_content(delta.content)
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
