--[[
  bucketAdd(P, D, seq, id, listed, deadline): appends the ask's entry to its bucket in the pending zset P (the id
  must be at most 255 bytes: the scripts refuse a longer one before any write) and scores the bucket in the deadline
  index D when the deadline is earlier than its score; returns the bucket b.
]]
--- @include "bucketSize"
--- @include "encodeDeadline"
--- @include "bucketRead"
local function bucketAdd(P, D, seq, id, listed, deadline)
  local b = math.floor(seq / BUCKET)
  local entry = string.char(#id) .. id .. string.char(seq % BUCKET + (listed and 64 or 0)) .. encodeDeadline(deadline)
  local old = bucketRead(P, b)
  if old then
    redis.call('ZREM', P, old)
    redis.call('ZADD', P, b, old .. entry)
  else
    redis.call('ZADD', P, b, string.format('%d', b) .. ':' .. entry)
  end
  if deadline > 0 then
    local current = redis.call('ZSCORE', D, b)
    if not current or deadline < tonumber(current) then redis.call('ZADD', D, deadline, b) end
  end
  return b
end
