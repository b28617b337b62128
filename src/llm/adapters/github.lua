-- GitHub Models adapter (https://docs.github.com/en/rest/models/inference). OpenAI wire format with
-- a GitHub personal access token (scope models:read) as the API key and model names such as
-- "openai/gpt-4.1". base_url: https://models.github.ai/inference
-- Edit freely: HomeAgent copies this file into <data>/adapters/ once and never overwrites it. The OpenAI
-- mapping is lib/openai_compat.lua; this file holds what GitHub Models does differently.

local compat = import("openai_compat")

local quirks = {
  names = "tool",
  reasoning_echo = "never",
  text_parts = false,
}

return compat.adapter({
  name = "github",
  version = "1",
  -- transform_request only moves message texts and the tools list into the body, so long texts and each tool
  -- definition reach it as short stand-ins that HomeAgent puts back (much faster for long prompts and many
  -- tools). Delete this line if you make it read or edit them.
  pass_through_text = true,
  -- The PAT goes in Authorization: Bearer, which HomeAgent sets from the source's api_key.
  headers = { ["X-GitHub-Api-Version"] = "2022-11-28" },
}, quirks)
