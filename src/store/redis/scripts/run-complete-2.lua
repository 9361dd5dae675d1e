--[[
  run-complete: records, once, that the continuation of one park of a run has completed.

  Guarantees: only a run of generation ARGV[1] that is ready (→ resumed) or dying (→ killed) changes; it leaves
  the ready-runs zset in the same step. Every later call (a rerun, a duplicate job) returns 0 and changes nothing,
  which is how a completed continuation is never run again: a worker checks this status before it runs one.

  The claim that settles a run (parked → ready | dying) lives in resolve-3.lua, beside the interaction claim. A
  handler's report whose completion has no chat reply to post first records it in its own step (report-5.lua), with
  the same helper.

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
--- @include "includes/runComplete"

return runComplete(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
