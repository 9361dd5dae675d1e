--[[
  bucketRemove(P, D, b, id): drops one id's entry from bucket b (resolve's hot path); true when it was there.

  The entry is found by a plain search for the id; when the id occurs once, right after a length byte that matches,
  that is its entry (the record names this bucket, so its entry is in it). Otherwise (an id inside another entry's
  bytes) the entries are walked. An emptied bucket leaves both zsets.
]]
--- @include "bucketRead"
local function bucketRemove(P, D, b, id)
  local old = bucketRead(P, b)
  if not old then return false end
  local idLen = #id
  local head = string.find(old, ':', 1, true) + 1
  local n = #old
  local start = nil
  local at = string.find(old, id, head + 1, true)
  if at and string.byte(old, at - 1) == idLen and not string.find(old, id, at + 1, true) then
    start = at - 1
  elseif at then
    local pos = head
    while pos <= n do
      local len = string.byte(old, pos)
      if len == idLen and string.sub(old, pos + 1, pos + len) == id then
        start = pos
        break
      end
      pos = pos + len + 8
    end
  end
  if not start then return false end
  local stop = start + idLen + 7
  redis.call('ZREM', P, old)
  if head == start and stop == n then
    redis.call('ZREM', D, b)
    return true
  end
  redis.call('ZADD', P, b, string.sub(old, 1, start - 1) .. string.sub(old, stop + 1))
  -- The deadline index is not re-scored here: a score may only be early, never late, and pop-due repairs an early
  -- one the first time it comes due (one pass over the bucket). Re-scoring here walked all 64 entries whenever the
  -- removed one held the bucket's earliest deadline — every answer, when questions are answered oldest first.
  return true
end
