/**
 * The `json` global of every Lua state, written in Lua rather than bridged to JS: wasmoon's own table
 * conversion has to guess array vs object and loses key order, and adapters need both to be predictable
 * (the exact request bytes decide whether a provider's prompt cache hits).
 *
 * Rules, as documented for adapter authors:
 * - decode: JSON null inside an object leaves the key absent (so `msg.content or ""` works); inside an
 *   array it becomes `json.null`, keeping positions. Decoded tables remember whether they were an array
 *   or an object and their key order, so decode → encode round-trips byte for byte.
 * - encode: a table marked by decode, `json.array(t)` or `json.object(t)` keeps that kind. An unmarked
 *   table is an array when its keys are exactly 1..n, otherwise an object; an unmarked EMPTY table is an
 *   object `{}` (tool schemas need `"properties": {}` far more often than adapters need an empty list; use
 *   `json.array()` for `[]`). Object keys keep decode order, then new keys follow sorted.
 * - integers stay integers; NaN and infinities, functions and cycles raise an error.
 */
export const JSON_LUA = String.raw`
local json = {}

local null = setmetatable({}, { __tostring = function() return "null" end })
json.null = null

local ARRAY = { __jsontype = "array" }
local OBJECT = { __jsontype = "object" }

function json.array(t) return setmetatable(t or {}, ARRAY) end
function json.object(t) return setmetatable(t or {}, OBJECT) end

local MAX_DEPTH = 200
local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
                  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

local function escape_char(c) return escapes[c] or string.format("\\u%04x", c:byte()) end

local function encode_string(s) return '"' .. s:gsub('[%c"\\]', escape_char) .. '"' end

local function encode_number(n)
  if math.type(n) == "integer" then return string.format("%d", n) end
  if n ~= n or n == math.huge or n == -math.huge then
    error("json.encode: cannot encode " .. tostring(n), 0)
  end
  local s = string.format("%.14g", n)
  if tonumber(s) ~= n then s = string.format("%.17g", n) end
  return s
end

local function is_sequence(t)
  local count, max = 0, 0
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 then return false end
    count = count + 1
    if k > max then max = k end
  end
  return count > 0 and count == max
end

local function key_string(k)
  if type(k) == "string" then return k end
  if type(k) == "number" then return encode_number(k) end
  error("json.encode: object key of type " .. type(k), 0)
end

local function ordered_keys(t, mt)
  local keys, seen = {}, {}
  if mt and mt.__jsonorder then
    for _, k in ipairs(mt.__jsonorder) do
      if rawget(t, k) ~= nil and not seen[k] then keys[#keys + 1] = k; seen[k] = true end
    end
  end
  local rest = {}
  for k in pairs(t) do
    if not seen[k] then rest[#rest + 1] = k end
  end
  table.sort(rest, function(a, b) return key_string(a) < key_string(b) end)
  for _, k in ipairs(rest) do keys[#keys + 1] = k end
  return keys
end

local encode_value

local function encode_table(t, depth, out)
  if depth > MAX_DEPTH then error("json.encode: nesting deeper than 200 (a cycle?)", 0) end
  local mt = getmetatable(t)
  local kind = mt and mt.__jsontype or (is_sequence(t) and "array" or "object")
  if kind == "array" then
    out[#out + 1] = "["
    for i = 1, #t do
      if i > 1 then out[#out + 1] = "," end
      encode_value(t[i], depth + 1, out)
    end
    out[#out + 1] = "]"
  else
    out[#out + 1] = "{"
    for i, k in ipairs(ordered_keys(t, mt)) do
      if i > 1 then out[#out + 1] = "," end
      out[#out + 1] = encode_string(key_string(k))
      out[#out + 1] = ":"
      encode_value(t[k], depth + 1, out)
    end
    out[#out + 1] = "}"
  end
end

function encode_value(v, depth, out)
  local ty = type(v)
  if v == nil or v == null then out[#out + 1] = "null"
  elseif ty == "boolean" then out[#out + 1] = tostring(v)
  elseif ty == "number" then out[#out + 1] = encode_number(v)
  elseif ty == "string" then out[#out + 1] = encode_string(v)
  elseif ty == "table" then encode_table(v, depth, out)
  else error("json.encode: cannot encode a " .. ty, 0) end
end

function json.encode(v)
  local out = {}
  encode_value(v, 0, out)
  return table.concat(out)
end

local byte, find, sub, match = string.byte, string.find, string.sub, string.match

local function fail(pos, msg) error(string.format("json.decode: %s at position %d", msg, pos), 0) end

-- The byte test first: compact JSON has no whitespace, and a pattern search costs far more than a compare.
local function skip(str, pos)
  local b = byte(str, pos)
  if b ~= 32 and b ~= 9 and b ~= 10 and b ~= 13 then return b and pos or #str + 1 end
  return find(str, "[^ \t\r\n]", pos) or #str + 1
end

local unescapes = { ['"'] = '"', ['\\'] = '\\', ['/'] = '/', b = '\b', f = '\f', n = '\n', r = '\r', t = '\t' }

local function codepoint_at(str, pos)
  local hex = match(str, "^%x%x%x%x", pos)
  if not hex then fail(pos, "bad \\u escape") end
  return tonumber(hex, 16)
end

local function decode_string(str, pos)
  local s = find(str, '["\\]', pos + 1)
  -- Most strings have no escapes: one substring, no pieces to join.
  if s and byte(str, s) == 34 then return sub(str, pos + 1, s - 1), s + 1 end
  local parts, i = {}, pos + 1
  while true do
    if not s then fail(pos, "unterminated string") end
    parts[#parts + 1] = sub(str, i, s - 1)
    if byte(str, s) == 34 then return table.concat(parts), s + 1 end
    local c = sub(str, s + 1, s + 1)
    if c == "u" then
      local cp, after = codepoint_at(str, s + 2), s + 6
      if cp >= 0xD800 and cp <= 0xDBFF and sub(str, after, after + 1) == "\\u" then
        local lo = codepoint_at(str, after + 2)
        if lo >= 0xDC00 and lo <= 0xDFFF then
          cp, after = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00), after + 6
        end
      end
      if cp >= 0xD800 and cp <= 0xDFFF then cp = 0xFFFD end
      parts[#parts + 1] = utf8.char(cp)
      i = after
    else
      local u = unescapes[c]
      if not u then fail(s, "bad escape") end
      parts[#parts + 1] = u
      i = s + 2
    end
    s = find(str, '["\\]', i)
  end
end

local decode_value

local function decode_array(str, pos, depth)
  local t, n = setmetatable({}, ARRAY), 0
  pos = skip(str, pos + 1)
  if byte(str, pos) == 93 then return t, pos + 1 end
  while true do
    local v
    v, pos = decode_value(str, pos, depth + 1)
    n = n + 1
    t[n] = v
    pos = skip(str, pos)
    local c = byte(str, pos)
    if c == 93 then return t, pos + 1 end
    if c ~= 44 then fail(pos, "expected ',' or ']'") end
    pos = skip(str, pos + 1)
  end
end

local function decode_object(str, pos, depth)
  local order = {}
  local t = setmetatable({}, { __jsontype = "object", __jsonorder = order })
  pos = skip(str, pos + 1)
  if byte(str, pos) == 125 then return t, pos + 1 end
  while true do
    if byte(str, pos) ~= 34 then fail(pos, "expected a string key") end
    local k, v
    k, pos = decode_string(str, pos)
    pos = skip(str, pos)
    if byte(str, pos) ~= 58 then fail(pos, "expected ':'") end
    v, pos = decode_value(str, skip(str, pos + 1), depth + 1)
    if v ~= null then
      if t[k] == nil then order[#order + 1] = k end
      t[k] = v
    end
    pos = skip(str, pos)
    local c = byte(str, pos)
    if c == 125 then return t, pos + 1 end
    if c ~= 44 then fail(pos, "expected ',' or '}'") end
    pos = skip(str, pos + 1)
  end
end

local literals = { ["true"] = true, ["false"] = false, ["null"] = null }

function decode_value(str, pos, depth)
  if depth > MAX_DEPTH then fail(pos, "nesting deeper than 200") end
  local b = byte(str, pos)
  if b == 123 then return decode_object(str, pos, depth) end
  if b == 91 then return decode_array(str, pos, depth) end
  if b == 34 then return decode_string(str, pos) end
  local num = match(str, "^-?%d+%.?%d*[eE][-+]?%d+", pos) or match(str, "^-?%d+%.?%d*", pos)
  if num then return tonumber(num), pos + #num end
  local word = match(str, "^%a+", pos)
  if word and literals[word] ~= nil then return literals[word], pos + #word end
  local c = sub(str, pos, pos)
  fail(pos, c == "" and "unexpected end of input" or "unexpected character '" .. c .. "'")
end

function json.decode(str)
  if type(str) ~= "string" then error("json.decode: expected a string, got " .. type(str), 0) end
  local v, pos = decode_value(str, skip(str, 1), 0)
  pos = skip(str, pos)
  if pos <= #str then fail(pos, "trailing characters") end
  return v
end

return json
`;
