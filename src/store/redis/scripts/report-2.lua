--[[
  report: the SDK worker's completion report (job protocol version 2, src/runs/job-protocol.ts), run on the
  worker's own BullMQ connection: not one of the gateway's transitions, and it reads no run. It marks the handler
  job reported and appends the report to the completions stream in one atomic step — what a MULTI of HSET and XADD
  did, as one command instead of four (and without the MULTI's ioredis pipeline, which copies every script the
  BullMQ connection defines onto itself).

  KEYS[1] the handler job's hash
  KEYS[2] the completions stream of the job's shard (the same hash tag)

  ARGV[1] the report, JSON

  Sets the job's reported mark, appends the report as field r. Returns 1.
]]
redis.call('HSET', KEYS[1], {{REPORTED_FIELD}}, '1')
redis.call('XADD', KEYS[2], '*', 'r', ARGV[1])
return 1
