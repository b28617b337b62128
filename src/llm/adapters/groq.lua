-- Groq chat completions adapter (https://console.groq.com/docs/api-reference). OpenAI wire format, but
-- Groq rejects echoed `reasoning_content`, returns reasoning as `reasoning`, and reports stream usage in
-- the last chunk's `x_groq.usage`. base_url: https://api.groq.com/openai/v1
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it. The OpenAI
-- mapping is lib/openai_compat.lua; this file holds what Groq does differently.

local compat = import("openai_compat")

local quirks = {
  names = "tool",
  reasoning_echo = "never",
  include_usage = false,
  text_parts = false,
  reasoning_fields = { "reasoning" },
  chunk_usage = function(chunk)
    local x_groq = type(chunk.x_groq) == "table" and chunk.x_groq or {}
    return chunk.usage or x_groq.usage
  end,
}

return compat.adapter({
  name = "groq",
  version = "1",
  -- transform_request only moves message texts and the tools list into the body, so long texts and each tool
  -- definition reach it as short stand-ins that HomeAgent puts back (much faster for long prompts and many
  -- tools). Delete this line if you make it read or edit them.
  pass_through_text = true,
}, quirks)
