-- OpenAI chat completions adapter (also fits most OpenAI-compatible servers: vLLM, llama.cpp, LM Studio,
-- OpenRouter, DeepSeek, ...). Maps HomeAgent's unified request/response/chunk JSON to the wire format.
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it. The mapping
-- itself is lib/openai_compat.lua, which lists the quirks an adapter can declare; to write an adapter for
-- another OpenAI-like server, copy this file and change what differs.

local compat = import("openai_compat")

local quirks = {
  -- DeepSeek-style gateways report the cache as prompt_cache_hit_tokens instead.
  usage = function(u, counts) counts.cache_read = counts.cache_read or u.prompt_cache_hit_tokens end,
}

local adapter = compat.adapter({
  name = "openai",
  version = "1",
  -- transform_request only moves message texts and the tools list into the body, so long texts and each tool
  -- definition reach it as short stand-ins that HomeAgent puts back (much faster for long prompts and many
  -- tools). Delete this line if you make it read or edit them.
  pass_through_text = true,
  endpoint = "/chat/completions",
  headers = {},
}, quirks)

-- Written out, although the library's default does the same, as the place to add fields to the body.
-- disable_thinking has no standard OpenAI field; provider-specific adapters (deepseek, ...) map it.
function adapter.transform_request(body)
  local req = json.decode(body)
  local out = json.object({ model = req.model, messages = json.array() })
  return compat.request(out, req, quirks)
end

return adapter
