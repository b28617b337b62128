-- Generic OpenAI-compatible gateway adapter (LiteLLM, OpenRouter, one-api, zen-style proxies, ...).
-- Gateways relay many upstream providers and pass their usage through in whichever shape the upstream
-- used, so this adapter normalises every known variant: OpenAI prompt_tokens_details.cached_tokens,
-- DeepSeek prompt_cache_hit/miss_tokens, Anthropic cache_read/cache_creation_input_tokens, and
-- input/output_tokens naming. base_url: the gateway's OpenAI base, e.g. http://127.0.0.1:4000/v1
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it. The OpenAI
-- mapping is lib/openai_compat.lua; this file holds what gateways do differently.

local compat = import("openai_compat")

local function tbl(v) return type(v) == "table" and v or {} end

local function gateway_usage(u, counts)
  local details = tbl(u.prompt_tokens_details or u.input_tokens_details)
  counts.cache_read = details.cached_tokens or u.prompt_cache_hit_tokens or u.cache_read_input_tokens
  counts.cache_miss = u.prompt_cache_miss_tokens
  if u.prompt_tokens == nil then
    -- Anthropic-style input_tokens leaves out what was read from or written to the cache.
    counts.prompt = (u.input_tokens or 0) + (u.cache_read_input_tokens or 0) + (u.cache_creation_input_tokens or 0)
  end
  counts.completion = u.completion_tokens or u.output_tokens or 0
  local completion_details = tbl(u.completion_tokens_details or u.output_tokens_details)
  counts.reasoning_tokens = completion_details.reasoning_tokens or u.reasoning_tokens
end

local quirks = {
  usage = gateway_usage,
  -- Some gateways put usage on the final choice instead of the chunk.
  chunk_usage = function(chunk, choice) return chunk.usage or choice.usage end,
  -- Some gateways answer with {"error": "text"}.
  error_message = function(body)
    if type(body.error) == "string" and body.error ~= "" then return body.error end
  end,
  -- Upstreams that send each call whole may send its arguments already decoded.
  object_arguments = true,
}

return compat.adapter({
  name = "server",
  version = "1",
  -- transform_request only moves message texts and the tools list into the body, so long texts and each tool
  -- definition reach it as short stand-ins that HomeAgent puts back (much faster for long prompts and many
  -- tools). Delete this line if you make it read or edit them.
  pass_through_text = true,
}, quirks)
