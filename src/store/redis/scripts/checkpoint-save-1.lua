--[[
  checkpoint-save: writes a run's checkpoint (owner, kind, parent, resume target, state, chat thread) into its run
  hash, the fields park-run writes for a park, leaving the run's record fields (status, generation, ask slots,
  attempts) as they are. A park writes its checkpoint itself, in its one step; this is the Checkpoints port's own
  write (src/store/redis/checkpoints.ts).

  Guarantees: a run owned by another identity is left alone (returns 0). Otherwise, in one step: a run parked folded
  (includes/foldedBucketKey.lua) is unfolded into its hash first; o, p, rs and st are replaced (64-byte pieces,
  includes/pieceSize.lua; an empty value is no field), k written unless tool, th replaced unless ARGV[6] is '' (a
  bound thread is kept), and the hash's expiry set to the retention window.

  KEYS[1] run hash         r:<run_id>

  ARGV[1]  owner identity
  ARGV[2]  run kind: tool | agent
  ARGV[3]  parent run id, or ''
  ARGV[4]  resume target as rs holds it (park-run's ARGV[4])
  ARGV[5]  checkpoint state JSON, or ''
  ARGV[6]  chat thread JSON, or '' to keep the bound one
  ARGV[7]  run retention, ms
  ARGV[8]  run id
  ARGV[9]  folded-runs level key (rf)
  ARGV[10] folded-runs bucket prefix (rf:)
  ARGV[11] interaction key prefix (i:)

  Returns 1 saved, 0 owned by another identity
]]
--- @include "includes/setPieces"
--- @include "includes/getPieces"
--- @include "includes/unfoldRun"

local run = KEYS[1]
local retention = tonumber(ARGV[7])
if redis.call('EXISTS', run) == 0 then unfoldRun(run, ARGV[8], ARGV[9], ARGV[10], ARGV[11], retention, nil) end
local owner = getPieces(run, 'o')
if owner and owner ~= ARGV[1] then return 0 end
setPieces(run, 'o', ARGV[1])
if ARGV[2] == 'tool' then redis.call('HDEL', run, 'k') else redis.call('HSET', run, 'k', ARGV[2]) end
setPieces(run, 'p', ARGV[3])
setPieces(run, 'rs', ARGV[4])
setPieces(run, 'st', ARGV[5])
if ARGV[6] ~= '' then setPieces(run, 'th', ARGV[6]) end
redis.call('PEXPIRE', run, retention)
return 1
