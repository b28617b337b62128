-- Small helpers every adapter needs, whatever its provider's wire format: `local wire = import("wire")`.
-- Edit freely: HomeAgent copies this file into <data>/adapters/lib/ once and never overwrites it.

local wire = {}

function wire.non_empty(s) return type(s) == "string" and s ~= "" end

-- A table that json.decode made from a JSON object (not an array).
function wire.is_object(v)
  return type(v) == "table" and getmetatable(v) ~= nil and getmetatable(v).__jsontype == "object"
end

-- Tool-call arguments as an object, from JSON text or an already-decoded table. Text that is not a JSON
-- object gives an empty object, plus the text itself as a second value so the caller can keep it.
function wire.arguments_object(args)
  if type(args) == "table" then return args, nil end
  if not wire.non_empty(args) then return json.object(), nil end
  local ok, value = pcall(json.decode, args)
  if ok and wire.is_object(value) then return value, nil end
  return json.object(), args
end

-- Providers that send no tool-call ids (Gemini, Ollama) get one derived from the call's position, name and
-- arguments (FNV-1a), so parsing the same reply twice gives the same id.
function wire.call_id(index, name, args)
  local s = (name or "") .. json.encode(args or json.object())
  local h = 2166136261
  for i = 1, #s do h = ((h ~ s:byte(i)) * 16777619) & 0xffffffff end
  return string.format("call_%d_%08x", index, h)
end

return wire
