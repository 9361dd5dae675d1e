--[[
  run-kill: turns a parked run dying, because a run it waits on (its child) was killed.

  Guarantees: only a parked run changes (→ dying, the cause recorded, entered in the ready-runs zset); a run that
  is resuming, resumed, killed or unknown is left alone, so the kill chain stops there and a rerun of the child's
  teardown is harmless. The cause is stored in 64-byte pieces (includes/pieceSize.lua; a child run id may be long)
  so the hash stays listpack-encoded. A run parked folded (includes/foldedBucketKey.lua) is unfolded into its hash
  first.

  KEYS[1] run hash         r:<run_id>
  KEYS[2] ready-runs zset

  ARGV[1] cause, e.g. run:<child run id>
  ARGV[2] run id
  ARGV[3] run retention, ms
  ARGV[4] now, epoch ms
  ARGV[5] folded-runs level key (rf): a run parked folded is unfolded into its hash first
  ARGV[6] folded-runs bucket prefix (rf:)
  ARGV[7] interaction key prefix (i:)

  Returns the run's generation when this call turned it dying, else -1
]]
--- @include "includes/setPieces"
--- @include "includes/unfoldRun"

if redis.call('EXISTS', KEYS[1]) == 0 then
  unfoldRun(KEYS[1], ARGV[2], ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[3]), nil)
end
if redis.call('HGET', KEYS[1], 's') ~= 'parked' then return -1 end
redis.call('HSET', KEYS[1], 's', 'dying')
setPieces(KEYS[1], 'x', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return tonumber(redis.call('HGET', KEYS[1], 'g'))
