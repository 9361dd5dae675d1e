--[[
  bucketOfBody(body): the bucket b the body names (member pb), or nil.
]]
--- @include "bucketAt"
local function bucketOfBody(body)
  local at = bucketAt(body)
  if at then return tonumber(string.sub(body, at + 6, -2)) end
  return nil
end
