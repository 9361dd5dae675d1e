--[[
  run-exists: 1 when the run has a hash or a folded park (includes/foldedBucketKey.lua) whose record is still
  there, else 0: what EXISTS r:<run_id> answers for a run that was never folded (a folded run has no such key).
  Reads only.

  KEYS[1] run hash         r:<run_id>

  ARGV[1] run id
  ARGV[2] folded-runs level key (rf)
  ARGV[3] folded-runs bucket prefix (rf:)
  ARGV[4] interaction key prefix (i:)

  Returns 1 or 0
]]
--- @include "includes/foldedFind"

if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
local _, value = foldedFind(ARGV[2], ARGV[3], ARGV[1])
if not value then return 0 end
return redis.call('EXISTS', ARGV[4] .. string.match(value, '^[^\n]*'))
