import { FOLDED_RUNS } from './folded-runs.js';
import { PIECES } from './fragments.js';

/**
 * The transitions of a parked run after its park: completing its continuation, and killing it from its child.
 * The claim that settles a run (parked → ready | dying) lives in resolve.ts, beside the interaction claim.
 */

/** Records that a run's continuation completed. */
export const RUN_COMPLETE = `--[[
  run-complete: records, once, that the continuation of one park of a run has completed.

  Guarantees: only a run of generation ARGV[1] that is ready (→ resumed) or dying (→ killed) changes; it leaves
  the ready-runs zset in the same step. Every later call (a rerun, a duplicate job) returns 0 and changes nothing,
  which is how a completed continuation is never run again: a worker checks this status before it runs one.

  KEYS[1] run hash         r:<run_id>
  KEYS[2] ready-runs zset

  ARGV[1] generation the continuation belongs to
  ARGV[2] run id (the ready-runs member)
  ARGV[3] run retention, ms
  ARGV[4] now, epoch ms
  ARGV[5] continuation attempts to record (field at), or '' to keep the count as it is (a webhook's attempts are
          counted as they happen; a handler's are reported with its completion, see docs/sdk.md "Job protocol")

  Returns 1 resumed, 2 killed, 0 nothing to complete (done already, another park, or no such run)
]]
if redis.call('HGET', KEYS[1], 'g') ~= ARGV[1] then return 0 end
local status = redis.call('HGET', KEYS[1], 's')
local code = 0
if status == 'ready' then
  redis.call('HSET', KEYS[1], 's', 'resumed', 'ra', ARGV[4])
  code = 1
elseif status == 'dying' then
  redis.call('HSET', KEYS[1], 's', 'killed', 'ra', ARGV[4])
  code = 2
else
  return 0
end
if ARGV[5] ~= nil and ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'at', ARGV[5]) end
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return code
`;

/** Kills a parked parent run whose child was killed. */
export const RUN_KILL = `--[[
  run-kill: turns a parked run dying, because a run it waits on (its child) was killed.

  Guarantees: only a parked run changes (→ dying, the cause recorded, entered in the ready-runs zset); a run that
  is resuming, resumed, killed or unknown is left alone, so the kill chain stops there and a rerun of the child's
  teardown is harmless. The cause is stored in 64-byte pieces (PIECES in fragments.ts; a child run id may be long)
  so the hash stays listpack-encoded.

  KEYS[1] run hash         r:<run_id>
  KEYS[2] ready-runs zset

  ARGV[1] cause, e.g. run:<child run id>
  ARGV[2] run id
  ARGV[3] run retention, ms
  ARGV[4] now, epoch ms
  ARGV[5] folded-runs level key (rf), or '' (absent): a run parked folded is unfolded into its hash first
  ARGV[6] folded-runs bucket prefix (rf:)
  ARGV[7] interaction key prefix (i:)

  Returns the run's generation when this call turned it dying, else -1
]]
${PIECES}
${FOLDED_RUNS}
if ARGV[5] ~= nil and ARGV[5] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
  unfoldRun(KEYS[1], ARGV[2], ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[3]), nil)
end
if redis.call('HGET', KEYS[1], 's') ~= 'parked' then return -1 end
redis.call('HSET', KEYS[1], 's', 'dying')
setPieces(KEYS[1], 'x', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return tonumber(redis.call('HGET', KEYS[1], 'g'))
`;

/** Binds a run id to the chat thread of a conversation turn, before the target parks it. */
export const RUN_BIND = `--[[
  run-bind: gives a run hash its owner (if it has none) and the chat thread of the turn that starts it.

  Guarantees: a run owned by another identity is left alone (returns 0); otherwise the owner is set when absent,
  the thread replaced, and the hash's expiry set to the retention window, in one step (so a bound hash never
  lacks an expiry). A retried turn rebinds harmlessly. Owner and thread are stored in 64-byte pieces (PIECES in
  fragments.ts) so the hash stays listpack-encoded; park-run keeps a bound thread.

  KEYS[1] run hash         r:<run_id>

  ARGV[1] owner identity
  ARGV[2] chat thread JSON
  ARGV[3] run retention, ms
  ARGV[4] run id
  ARGV[5] folded-runs level key (rf), or '' (absent): a run parked folded is unfolded into its hash first
  ARGV[6] folded-runs bucket prefix (rf:)
  ARGV[7] interaction key prefix (i:)

  Returns 1 bound, 0 owned by another identity
]]
${PIECES}
${FOLDED_RUNS}
if ARGV[5] ~= nil and ARGV[5] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
  unfoldRun(KEYS[1], ARGV[4], ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[3]), nil)
end
local owner = getPieces(KEYS[1], 'o')
if not owner then
  setPieces(KEYS[1], 'o', ARGV[1])
elseif owner ~= ARGV[1] then
  return 0
end
setPieces(KEYS[1], 'th', ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;
