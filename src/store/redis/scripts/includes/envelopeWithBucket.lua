--[[
  envelopeWithBucket(text, b): a new record's envelope (status letter, newline, body, then the optional parts) with
  the bucket in its body (withBucket).
]]
--- @include "withBucket"
local function envelopeWithBucket(text, b)
  local bodyEnd = string.find(text, '\n', 3, true)
  if bodyEnd then
    return string.sub(text, 1, 2) .. withBucket(string.sub(text, 3, bodyEnd - 1), b) .. string.sub(text, bodyEnd)
  end
  return string.sub(text, 1, 2) .. withBucket(string.sub(text, 3), b)
end
