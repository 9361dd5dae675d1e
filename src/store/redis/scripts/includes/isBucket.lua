--[[
  isBucket(member): false for a legacy member of the pending zset (one id per ask, from before the buckets).
]]
local function isBucket(member)
  return string.find(member, '^%d+:') ~= nil
end
