--[[
  withBucket(body, b): the body JSON with "pb":b appended as its last member (bucketSize.lua).
]]
local function withBucket(body, b)
  return string.sub(body, 1, -2) .. ',"pb":' .. string.format('%d', b) .. '}'
end
