--[[
  bucketRead(P, b): bucket b's member of the pending zset P (the one member scored b), or nil.
]]
local function bucketRead(P, b)
  return redis.call('ZRANGEBYSCORE', P, b, b)[1]
end
