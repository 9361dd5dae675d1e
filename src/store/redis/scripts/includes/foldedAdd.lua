--[[
  foldedAdd(levelKey, prefix, runId, value, top): writes the run's folded entry at level top (as foldedFind
  returned it), raising the level when its bucket holds FOLD_BUCKET_MAX entries already (foldedBucketKey.lua).
]]
--- @include "foldedBucketKey"
local FOLD_BUCKET_MAX = 64
local FOLD_MAX_LEVEL = 24
local function foldedAdd(levelKey, prefix, runId, value, top)
  local key = foldedBucketKey(prefix, runId, top)
  if redis.call('HLEN', key) >= FOLD_BUCKET_MAX and top < FOLD_MAX_LEVEL then
    top = top + 1
    redis.call('SET', levelKey, top)
    key = foldedBucketKey(prefix, runId, top)
  end
  redis.call('HSET', key, runId, value)
end
