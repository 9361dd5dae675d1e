--[[
  run-read: a run's fields as its hash holds them, each pieced value joined byte-exactly (includes/joinedRun.lua),
  or, when the run has no hash, the fields of its folded park (includes/foldedBucketKey.lua); an empty reply when
  there is neither (or the folded park's record is gone). Reads only.

  KEYS[1] run hash         r:<run_id>

  ARGV[1] run id
  ARGV[2] folded-runs level key (rf)
  ARGV[3] folded-runs bucket prefix (rf:)
  ARGV[4] interaction key prefix (i:)

  Returns flat { field, value, ... }
]]
--- @include "includes/joinedRun"
--- @include "includes/foldedFind"
--- @include "includes/foldedFields"

if redis.call('EXISTS', KEYS[1]) == 1 then return joinedRun(KEYS[1]) end
local _, value = foldedFind(ARGV[2], ARGV[3], ARGV[1])
if not value then return {} end
local text = redis.call('GET', ARGV[4] .. string.match(value, '^[^\n]*'))
if not text then return {} end
return foldedFields(value, text)
