--[[
  pop-due: removes and returns the ids whose deadline is at or before now.

  Guarantees: each due id is returned to exactly one caller, once; concurrent callers split the due ids between
  them. The record itself stays pending (and listed): the caller expires it through resolve. Its deadline is
  zeroed in its bucket (includes/bucketSize.lua) and the bucket re-scored in the index, in this one step.

  Order: the index scores each bucket by its earliest deadline. The script takes the earliest bucket and pops its
  entries due by min(now, the next bucket's score), earliest first, then looks again; so the ids come out earliest
  deadline first across buckets (ties: by sequence within a bucket, then by bucket).

  KEYS[1] deadlines zset    (the bucket index)
  KEYS[2] pending zset      (of buckets)

  ARGV[1] now, epoch ms
  ARGV[2] the most ids to return

  Returns the ids, earliest deadline first (possibly empty)
]]
--- @include "includes/bucketRead"
--- @include "includes/bucketEntries"
--- @include "includes/bucketSave"

-- A popped entry's deadline: 0, as encodeDeadline writes it.
local NO_DEADLINE = string.char(0, 0, 0, 0, 0, 0)
local D, P = KEYS[1], KEYS[2]
local now, max = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
-- Each pass pops at least one id or repairs one index entry, so this bound is never reached in a sound store.
local passes = 0
while #out < max and passes < max + 16 do
  passes = passes + 1
  local head = redis.call('ZRANGE', D, 0, 1, 'WITHSCORES')
  if #head == 0 or tonumber(head[2]) > now then break end
  local b = tonumber(head[1])
  local bound = now
  if head[4] and tonumber(head[4]) < bound then bound = tonumber(head[4]) end
  local old = bucketRead(P, b)
  if not old then
    redis.call('ZREM', D, head[1])
  else
    local ids, _, dls, raws = bucketEntries(old)
    local due = {}
    for k = 1, #ids do
      if dls[k] > 0 and dls[k] <= bound then due[#due + 1] = k end
    end
    table.sort(due, function(x, y)
      if dls[x] ~= dls[y] then return dls[x] < dls[y] end
      return x < y
    end)
    for j = 1, math.min(#due, max - #out) do
      local k = due[j]
      out[#out + 1] = ids[k]
      dls[k] = 0
      raws[k] = string.sub(raws[k], 1, #raws[k] - 6) .. NO_DEADLINE
    end
    bucketSave(P, D, b, old, raws, dls, {})
  end
end
return out
