--[[
  migrate-indexes: moves legacy index members (one per ask, from before the buckets: includes/bucketSize.lua) into
  buckets.

  Run by every store as it connects, until both passes report cursor 0; on a store with no legacy members it only
  scans. Each call handles one ZSCAN step, atomically: a legacy member leaves its zset in the same step as its ask
  enters a bucket (and its record's body names that bucket), so no ask is ever in both forms or in neither.

  Pass 'p' (over the pending zset): a legacy member is an id scored by its sequence number; it goes into that
  sequence's bucket, listed, with its deadline from the deadline zset (0 when already popped), which it leaves.
  Pass 'd' (over the deadline zset, after pass 'p'): a legacy member left is an unlisted ask (to the caller) scored
  by its deadline; it takes a fresh sequence number. A member whose record is gone or no longer pending is dropped.
  Legacy processes must be stopped first: one still writing legacy members after the passes leaves them to resolve
  and pop-due, which handle them as before, but not to the list.

  KEYS[1] pending zset
  KEYS[2] deadlines zset
  KEYS[3] sequence counter  seq

  ARGV[1] pass: p | d
  ARGV[2] ZSCAN cursor
  ARGV[3] record key prefix

  Returns { next cursor, members converted }
]]
--- @include "includes/splitRecord"
--- @include "includes/joinRecord"
--- @include "includes/bucketAdd"
--- @include "includes/bucketOfBody"
--- @include "includes/withBucket"
--- @include "includes/isBucket"

local P, D, S = KEYS[1], KEYS[2], KEYS[3]
local pass = ARGV[1]
local reply = redis.call('ZSCAN', pass == 'p' and P or D, ARGV[2], 'COUNT', 200)
local moved = 0
local function legacy(member)
  if pass == 'p' then return not isBucket(member) end
  return string.find(member, '^%d+$') == nil
end
local items = reply[2]
for i = 1, #items, 2 do
  local id, score = items[i], tonumber(items[i + 1])
  if legacy(id) then
    local key = ARGV[3] .. id
    local text = redis.call('GET', key)
    local seq, deadline, listed
    if pass == 'p' then
      redis.call('ZREM', P, id)
      seq, deadline, listed = score, tonumber(redis.call('ZSCORE', D, id) or '0'), true
      redis.call('ZREM', D, id)
    else
      redis.call('ZREM', D, id)
      seq, deadline, listed = nil, score, false
    end
    if text and #id <= 255 then
      local parts = splitRecord(text)
      if parts[1] == {{STATUS_CODES.pending}} and not bucketOfBody(parts[2]) then
        if not seq then seq = redis.call('INCR', S) end
        parts[2] = withBucket(parts[2], bucketAdd(P, D, seq, id, listed, deadline))
        redis.call('SET', key, joinRecord(parts), 'KEEPTTL')
        moved = moved + 1
      end
    end
  end
end
return { reply[1], moved }
