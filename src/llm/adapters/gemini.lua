-- Google Gemini API adapter (generateContent / streamGenerateContent).
-- base_url: https://generativelanguage.googleapis.com ; model: e.g. gemini-2.5-flash (without "models/").
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it.

local adapter = {
  name = "gemini",
  version = "1",
  endpoint = "/v1beta/models/{model}:generateContent",
  stream_endpoint = "/v1beta/models/{model}:streamGenerateContent?alt=sse",
  auth = "x-goog-api-key",
  headers = {},
}

local FINISH_REASONS = {
  STOP = "stop",
  MAX_TOKENS = "length",
  SAFETY = "content_filter",
  RECITATION = "content_filter",
  BLOCKLIST = "content_filter",
  PROHIBITED_CONTENT = "content_filter",
  SPII = "content_filter",
}

-- The OpenAPI subset Gemini accepts in function parameters; other JSON Schema keywords
-- (additionalProperties, $schema, ...) make the whole request fail.
local SCHEMA_KEYS = {}
for _, k in ipairs({ "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
                     "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
                     "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum",
                     "maximum" }) do
  SCHEMA_KEYS[k] = true
end

local wire = import("wire")
local non_empty, is_object, args_object = wire.non_empty, wire.is_object, wire.arguments_object

-- Gemini rejects an object schema with empty properties, so such a schema loses the field (and a tool
-- without parameters loses `parameters`).
local function clean_schema(schema)
  if type(schema) ~= "table" then return schema end
  local out = json.object()
  for k, v in pairs(schema) do
    if k == "properties" then
      local props = json.object()
      for name, sub in pairs(v) do props[name] = clean_schema(sub) end
      if next(props) then out.properties = props end
    elseif k == "items" then
      out.items = clean_schema(v)
    elseif k == "anyOf" then
      out.anyOf = json.array()
      for i, sub in ipairs(v) do out.anyOf[i] = clean_schema(sub) end
    elseif SCHEMA_KEYS[k] then
      out[k] = v
    end
  end
  return out
end

local function text_parts(text) return json.array({ json.object({ text = text }) }) end

-- Gemini matches function responses to calls by name; the unified history links them by call id.
local function wire_contents(messages)
  local system, contents, names = {}, json.array(), {}
  local responses -- parts of the user turn that collects the current run of tool results
  for _, m in ipairs(messages or {}) do
    if m.role == "system" then
      if non_empty(m.content) then system[#system + 1] = m.content end
    elseif m.role == "tool" then
      local name = names[m.tool_call_id] or m.name
      if not non_empty(name) then error("tool result " .. tostring(m.tool_call_id) .. " has no matching tool call", 0) end
      if not responses then
        responses = json.array()
        contents[#contents + 1] = json.object({ role = "user", parts = responses })
      end
      responses[#responses + 1] = json.object({
        functionResponse = json.object({ name = name, response = json.object({ result = m.content or "" }) }),
      })
    elseif m.role == "assistant" then
      local parts = json.array()
      if non_empty(m.content) then parts[#parts + 1] = json.object({ text = m.content }) end
      for _, tc in ipairs(m.tool_calls or {}) do
        local fn = tc["function"] or {}
        names[tc.id] = fn.name
        parts[#parts + 1] = json.object({ functionCall = json.object({ name = fn.name, args = args_object(fn.arguments) }) })
      end
      if #parts > 0 then
        contents[#contents + 1] = json.object({ role = "model", parts = parts })
        responses = nil
      end
    else
      contents[#contents + 1] = json.object({ role = "user", parts = text_parts(m.content or "") })
      responses = nil
    end
  end
  return table.concat(system, "\n\n"), contents
end

local function declarations(tools)
  local out = json.array()
  for _, t in ipairs(tools) do
    local fn = t["function"] or {}
    local decl = json.object({ name = fn.name, description = fn.description or "" })
    local params = clean_schema(fn.parameters)
    if is_object(params) and params.properties then decl.parameters = params end
    out[#out + 1] = decl
  end
  return out
end

function adapter.transform_request(body)
  local req = json.decode(body)
  local system, contents = wire_contents(req.messages)
  local out = json.object({ contents = contents })
  if system ~= "" then out.systemInstruction = json.object({ parts = text_parts(system) }) end
  if type(req.tools) == "table" and #req.tools > 0 then
    out.tools = json.array({ json.object({ functionDeclarations = declarations(req.tools) }) })
    if non_empty(req.tool_choice) then
      out.toolConfig = json.object({ functionCallingConfig = json.object({ mode = req.tool_choice:upper() }) })
    end
  end
  local config = json.object()
  if req.max_tokens ~= nil then config.maxOutputTokens = req.max_tokens end
  if req.temperature ~= nil then config.temperature = req.temperature end
  if req.disable_thinking then config.thinkingConfig = json.object({ thinkingBudget = 0 }) end
  if next(config) then out.generationConfig = config end
  -- Object values merge one level deep, so extra_body = { generationConfig = { topK = 40 } } keeps the rest.
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

-- promptTokenCount includes cached tokens; candidatesTokenCount excludes thoughts, which are counted
-- into completion here as OpenAI does. Gemini names cached tokens only when there are some.
local function unified_usage(u)
  if type(u) ~= "table" then return json.null end
  local prompt = u.promptTokenCount or 0
  local thoughts = u.thoughtsTokenCount or 0
  local completion = (u.candidatesTokenCount or 0) + thoughts
  local cached = u.cachedContentTokenCount
  return json.object({
    prompt = prompt,
    completion = completion,
    total = u.totalTokenCount or (prompt + completion),
    cache_read = cached or 0,
    cache_miss = math.max(prompt - (cached or 0), 0),
    cache_reported = cached ~= nil,
    reasoning_tokens = thoughts,
  })
end

-- Gemini sends no call ids (unless the API supplies one): derive one from position, name and arguments,
-- so that it is the same however often the reply is parsed.
local function call_id(call, index)
  if non_empty(call.id) then return call.id end
  return wire.call_id(index, call.name, call.args)
end

local function raise_api_error(decoded)
  if type(decoded.error) == "table" then
    error("provider error: " .. tostring(decoded.error.message or json.encode(decoded.error)), 0)
  end
end

-- One response (whole, or one stream event) → its pieces; `first_index` numbers the function calls.
local function read_candidate(resp, first_index)
  raise_api_error(resp)
  local candidate = type(resp.candidates) == "table" and resp.candidates[1]
  if type(candidate) ~= "table" then
    local blocked = type(resp.promptFeedback) == "table" and resp.promptFeedback.blockReason
    if blocked then error("the prompt was blocked: " .. tostring(blocked), 0) end
    return nil
  end
  local text, thoughts, calls = {}, {}, json.array()
  for _, part in ipairs((candidate.content or {}).parts or {}) do
    if type(part.functionCall) == "table" then
      local call = part.functionCall
      local index = first_index + #calls
      calls[#calls + 1] = { id = call_id(call, index), name = call.name or "", args = args_object(call.args), index = index }
    elseif part.thought == true then
      thoughts[#thoughts + 1] = part.text or ""
    elseif type(part.text) == "string" then
      text[#text + 1] = part.text
    end
  end
  return { text = table.concat(text), thoughts = table.concat(thoughts), calls = calls, finish = candidate.finishReason }
end

local function finish_reason(reason, had_calls)
  if reason == nil then return nil end
  if reason == "STOP" and had_calls then return "tool_calls" end
  return FINISH_REASONS[reason] or reason:lower()
end

function adapter.transform_response(body)
  local resp = json.decode(body)
  if type(resp) ~= "table" then error("response is not a JSON object", 0) end
  local got = read_candidate(resp, 0)
  if not got then error("response has no candidates", 0) end
  local calls = json.array()
  for _, c in ipairs(got.calls) do calls[#calls + 1] = json.object({ id = c.id, name = c.name, arguments = c.args }) end
  return json.encode({
    content = got.text,
    reasoning_content = got.thoughts,
    finish_reason = finish_reason(got.finish, #calls > 0) or "",
    token_usage = unified_usage(resp.usageMetadata),
    tool_calls = calls,
  })
end

-- Per stream: calls are numbered across events, and a STOP after calls means "tool_calls".
local stream_calls = 0

function adapter.begin_stream() stream_calls = 0 end

function adapter.transform_stream_chunk(payload)
  local resp = json.decode(payload)
  if type(resp) ~= "table" then return "" end
  local got = read_candidate(resp, stream_calls)
  local usage = unified_usage(resp.usageMetadata)
  if not got then
    if usage == json.null then return "" end
    got = { text = "", thoughts = "", calls = {} }
  end
  local calls = json.array()
  for _, c in ipairs(got.calls) do
    calls[#calls + 1] = json.object({ id = c.id, name = c.name, raw_arguments = json.encode(c.args), stream_index = c.index })
  end
  stream_calls = stream_calls + #calls
  return json.encode({
    content = got.text,
    reasoning_content = got.thoughts,
    done = false,
    finish_reason = finish_reason(got.finish, stream_calls > 0),
    usage = usage,
    tool_calls = calls,
  })
end

return adapter
