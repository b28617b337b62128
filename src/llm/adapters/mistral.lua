-- Mistral chat completions adapter (https://docs.mistral.ai/api). OpenAI-like wire format, but the API
-- rejects fields it does not know (no stream_options, no echoed reasoning), always reports usage in the
-- last stream chunk, and Magistral models send their thinking as typed content parts.
-- base_url: https://api.mistral.ai/v1
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it. The OpenAI
-- mapping is lib/openai_compat.lua; this file holds what Mistral does differently.

local compat = import("openai_compat")

local quirks = {
  names = "tool",
  reasoning_echo = "never",
  include_usage = false,
  thinking_parts = true,
  -- Reasoning arrives only as thinking parts of the content.
  reasoning_fields = {},
  usage = function(_, counts) counts.reasoning_tokens = nil end,
  -- Mistral errors come as {"object":"error","message":...} as well as OpenAI's {"error":{...}}.
  error_message = function(body)
    if body.object == "error" then return tostring(body.message) end
  end,
  -- Mistral sends each call whole, sometimes with arguments already decoded.
  object_arguments = true,
}

return compat.adapter({
  name = "mistral",
  version = "1",
  -- transform_request only moves message texts and the tools list into the body, so long texts and each tool
  -- definition reach it as short stand-ins that HomeAgent puts back (much faster for long prompts and many
  -- tools). Delete this line if you make it read or edit them.
  pass_through_text = true,
}, quirks)
