--[[
  withoutBucket(body): the body without its bucket member (the form a resolved record keeps).
]]
--- @include "bucketAt"
local function withoutBucket(body)
  local at = bucketAt(body)
  if at then return string.sub(body, 1, at - 1) .. '}' end
  return body
end
