-- DeepSeek chat completions adapter (https://api-docs.deepseek.com). OpenAI wire format plus:
-- `reasoning_content` in replies and streams, the `thinking` switch, and cache usage reported as
-- prompt_cache_hit_tokens / prompt_cache_miss_tokens. base_url: https://api.deepseek.com
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it. The OpenAI
-- mapping is lib/openai_compat.lua; this file holds what DeepSeek does differently.

local compat = import("openai_compat")

local quirks = {
  names = "none",
  -- Thinking mode wants the reasoning of a tool-call round echoed back while the turn goes on;
  -- on any other message DeepSeek rejects reasoning_content with a 400.
  reasoning_echo = "tool_calls",
  reasoning_fields = { "reasoning_content" },
  text_parts = false,
  usage = function(u, counts)
    counts.cache_read, counts.cache_miss = u.prompt_cache_hit_tokens, u.prompt_cache_miss_tokens
  end,
}

local adapter = compat.adapter({
  name = "deepseek",
  version = "1",
  -- transform_request only moves message texts and the tools list into the body, so long texts and each tool
  -- definition reach it as short stand-ins that HomeAgent puts back (much faster for long prompts and many
  -- tools). Delete this line if you make it read or edit them.
  pass_through_text = true,
}, quirks)

function adapter.transform_request(body)
  local req = json.decode(body)
  local out = json.object({ model = req.model, messages = json.array() })
  if req.disable_thinking == true then
    out.thinking = json.object({ type = "disabled" })
  elseif req.disable_thinking == false then
    out.thinking = json.object({ type = "enabled" })
  end
  return compat.request(out, req, quirks)
end

return adapter
