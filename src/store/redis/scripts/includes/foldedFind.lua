--[[
  foldedFind(levelKey, prefix, runId): the bucket key and value of the run's folded entry (nil, nil when none), and
  the current level, which foldedAdd takes so as not to read it again (foldedBucketKey.lua).
]]
--- @include "foldedBucketKey"
local function foldedFind(levelKey, prefix, runId)
  local top = tonumber(redis.call('GET', levelKey) or '0')
  for level = top, 0, -1 do
    local key = foldedBucketKey(prefix, runId, level)
    local value = redis.call('HGET', key, runId)
    if value then return key, value, top end
  end
  return nil, nil, top
end
