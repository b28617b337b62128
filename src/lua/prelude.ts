/**
 * The trusted half of every Lua state: it runs once with the full standard library, keeps private
 * references to what the sandbox needs (debug.sethook, raw load), then deletes every dangerous global.
 * Scripts never see the real _G: each one runs in its own environment built from a short allow-list.
 *
 * Time limit: the state runs in a worker thread that the host terminates when a call overruns (see
 * worker-host.ts); that is the guarantee. The count hook here is the clean path for ordinary loops: it asks
 * the clock every HOOK_COUNT instructions and raises TIMEOUT once the deadline has passed, so the call fails
 * with an error and the worker (with every script loaded in it) lives on. Lua keeps hook functions per
 * thread and a new coroutine does not inherit the Lua-level hook, so coroutine.create/wrap are replaced by
 * versions that hook the new thread. pcall, xpcall and coroutine.resume re-raise TIMEOUT so that a script
 * cannot catch it and keep looping. What the hook cannot reach (finalizers run without hooks, one long C
 * call such as string.find) is left to the terminate.
 *
 * HTTP: http_get(url, headers?) and http_post(url, body, headers?) return body, status, headers (names in
 * lower case) for any HTTP status, and raise an error when the request could not be made (host not
 * allowed, timeout, network failure). The host decides what is allowed; see vm.ts.
 *
 * Libraries: import(name) returns the table a shared library's chunk returns. Lua never opens a file: the
 * host hands over the library's text, and the chunk runs as text only, under the caller's time limit, in
 * an environment of its own built like a script's. Libraries are cached per script rather than per state,
 * so that scripts (and instances of one script) sharing a state never share a library's table or upvalues.
 *
 * The chunk expects the globals __ha_expired(), __ha_log(script, level, msg), __ha_http(script, method,
 * url, body, headers_json) → reply_json, __ha_library(script, name) → source or nil,
 * __ha_library_names(script) → "a, b" and __ha_json_source (the json module's text) and returns the
 * runner table { load, call(name, fn, args, n), unload } that the host calls into.
 */
export const PRELUDE_LUA = String.raw`
local HOOK_COUNT = 10000
local expired, host_log, host_http = __ha_expired, __ha_log, __ha_http
local host_library, host_library_names = __ha_library, __ha_library_names
local sethook, raw_load, raw_pcall, raw_xpcall = debug.sethook, load, pcall, xpcall
local json = assert(raw_load(__ha_json_source, "=json", "t"))()
local co_create, co_resume = coroutine.create, coroutine.resume
local pack, unpack, concat = table.pack, table.unpack, table.concat

local TIMEOUT = setmetatable({}, { __tostring = function() return "time limit exceeded" end })

local function hook()
  if expired() then error(TIMEOUT, 0) end
end

local function rethrow_timeout(ok, ...)
  if not ok and (...) == TIMEOUT then error(TIMEOUT, 0) end
  return ok, ...
end

local function guarded_create(f)
  local co = co_create(f)
  sethook(co, hook, "", HOOK_COUNT)
  return co
end

local function resume(co, ...) return rethrow_timeout(co_resume(co, ...)) end

local function wrap_results(ok, ...)
  if not ok then error((...), 0) end
  return ...
end

local coroutine_lib = {
  create = guarded_create,
  resume = resume,
  wrap = function(f)
    local co = guarded_create(f)
    return function(...) return wrap_results(resume(co, ...)) end
  end,
  yield = coroutine.yield, status = coroutine.status, running = coroutine.running,
  isyieldable = coroutine.isyieldable, close = coroutine.close,
}

local base = {}
for _, k in ipairs({ "assert", "error", "ipairs", "next", "pairs", "rawequal", "rawget", "rawlen", "rawset",
                     "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type", "_VERSION" }) do
  base[k] = _G[k]
end
base.pcall = function(f, ...) return rethrow_timeout(raw_pcall(f, ...)) end
base.xpcall = function(f, handler, ...)
  return rethrow_timeout(raw_xpcall(f, function(e)
    if e == TIMEOUT then return e end
    return handler(e)
  end, ...))
end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local libs = { string = string, table = table, math = math, utf8 = utf8, coroutine = coroutine_lib, json = json }

local function stringify(...)
  local parts = pack(...)
  for i = 1, parts.n do parts[i] = tostring(parts[i]) end
  return concat(parts, "\t", 1, parts.n)
end

-- http_get/http_post tail-call this, so error level 2 blames the script line that called them.
local function http_call(name, fname, method, url, body, headers)
  if type(url) ~= "string" then error(fname .. ": the URL must be a string", 2) end
  if body ~= nil and type(body) ~= "string" then error(fname .. ": the body must be a string", 2) end
  if headers ~= nil and type(headers) ~= "table" then error(fname .. ": headers must be a table", 2) end
  local sent = {}
  for k, v in pairs(headers or {}) do sent[tostring(k)] = tostring(v) end
  local reply = json.decode(host_http(name, method, url, body, json.encode(json.object(sent))))
  if reply.error then error(reply.error, 2) end
  return reply.body, reply.status, reply.headers
end

-- A fresh environment per script: one script cannot replace another's string.format or json.encode.
local function new_env(name)
  local env = copy(base)
  for lib, t in pairs(libs) do env[lib] = copy(t) end
  env.string.dump = nil
  env.log = function(level, ...) host_log(name, tostring(level), stringify(...)) end
  env.print = function(...) host_log(name, "info", stringify(...)) end
  env.http_get = function(url, headers) return http_call(name, "http_get", "GET", url, nil, headers) end
  env.http_post = function(url, body, headers) return http_call(name, "http_post", "POST", url, body, headers) end
  -- Text chunks only: crafted bytecode can break out of the VM.
  env.load = function(chunk, chunkname, _, chunk_env) return raw_load(chunk, chunkname, "t", chunk_env or env) end
  env._G = env
  return env
end

local function guarded(f, ...)
  sethook(hook, "", HOOK_COUNT)
  local r = pack(raw_pcall(f, ...))
  local err = r[2]
  if not r[1] and type(err) ~= "string" then
    -- An error object's __tostring is script code too: it runs under the hook, since it may never return.
    local ok, text = raw_pcall(tostring, err)
    if ok and type(text) == "string" then err = text
    elseif text == TIMEOUT then err = "time limit exceeded"
    else err = "(error object cannot be shown: " .. type(err) .. ")" end
  end
  sethook()
  if not r[1] then error(err, 0) end
  return unpack(r, 2, r.n)
end

-- Makes the environments of one script: its own, then one per library it imports, alike (same globals,
-- same name towards log and http) and sharing one import cache.
local function env_maker(name, label, globals)
  local loaded, loading = {}, {}
  local import

  local function make_env()
    local env = new_env(label)
    if globals then
      for k, v in pairs(json.decode(globals)) do env[k] = v end
    end
    env.import = import
    return env
  end

  import = function(lib)
    if type(lib) ~= "string" then error("import: the library name must be a string", 2) end
    if loaded[lib] ~= nil then return loaded[lib] end
    if loading[lib] then error("import: library " .. lib .. " imports itself (an import cycle)", 2) end
    local source = host_library(name, lib)
    if source == nil then
      local names = host_library_names(name)
      error("import: no library named " .. lib .. " (available: " .. (names ~= "" and names or "none") .. ")", 2)
    end
    local chunk, err = raw_load(source, "=lib/" .. lib, "t", make_env())
    if not chunk then error(err, 0) end
    loading[lib] = true
    local ok, value = raw_pcall(chunk)
    loading[lib] = nil
    if not ok then error(value, 0) end
    if value == nil then error("import: library " .. lib .. " returned nothing", 2) end
    loaded[lib] = value
    return value
  end

  return make_env
end

local scripts = {}

local runner = {}

-- label names the script in messages and to log/http; several instances of one script share a label.
-- globals (JSON text of an object) become globals of the script, e.g. the adapter's source table.
function runner.load(name, source, label, globals)
  label = label or name
  local env = env_maker(name, label, globals)()
  local chunk, err = raw_load(source, "=" .. label, "t", env)
  if not chunk then error(err, 0) end
  local value = guarded(chunk)
  scripts[name] = { env = env, value = value, label = label }
  return value
end

-- The arguments come as one table and their count: unpack makes room on the stack for them, which the
-- host's pushes of separate arguments would not.
function runner.call(name, fname, args, n)
  local s = scripts[name]
  if not s then error("no script named " .. name .. " is loaded", 0) end
  local f = type(s.value) == "table" and s.value[fname] or s.env[fname]
  if type(f) ~= "function" then error(s.label .. " has no function " .. tostring(fname), 0) end
  return guarded(f, unpack(args, 1, n))
end

function runner.unload(name) scripts[name] = nil end

for _, k in ipairs({ "os", "io", "require", "dofile", "loadfile", "package", "debug", "load", "collectgarbage",
                     "__ha_expired", "__ha_log", "__ha_http", "__ha_library", "__ha_library_names",
                     "__ha_json_source" }) do
  _G[k] = nil
end
string.dump = nil
-- Hide the shared string metatable, so that a script cannot rewrite the methods other scripts call.
getmetatable("").__metatable = false

return runner
`;
