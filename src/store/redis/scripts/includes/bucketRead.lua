--[[
  bucketRead(P, b): bucket b's member of the pending zset P, or nil. A legacy member (an id scored by its sequence
  number, written before buckets) may share the score, so the member is picked by its prefix.
]]
local function bucketRead(P, b)
  local prefix = string.format('%d', b) .. ':'
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', P, b, b)) do
    if string.sub(member, 1, #prefix) == prefix then return member end
  end
  return nil
end
