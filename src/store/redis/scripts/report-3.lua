--[[
  report: a handler continuation's completion, recorded by the continuation doors (src/queue/handler-claims.ts) for
  the worker holding its lease, on the gateway's BullMQ connection: not one of the run's transitions, and it reads no
  run. Under the lease only, it marks the handler job reported and appends the report to the completions stream in
  one atomic step: the mark is what keeps a completed continuation from being offered again, and the report is what
  the askgate worker records in the run (src/queue/completion-stream.ts).

  KEYS[1] the handler job's hash
  KEYS[2] the handler job's lock (BullMQ's `<job>:lock`, holding the lease id of the worker that holds the job)
  KEYS[3] the completions stream of the job's shard (the same hash tag)

  ARGV[1] the report, JSON
  ARGV[2] the lease id

  Returns 1 recorded; 0 the job was reported already (nothing changes); -1 the lease is not the job's (it lapsed, or
  another worker holds the job now); -2 no such job.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
if redis.call('HEXISTS', KEYS[1], {{REPORTED_FIELD}}) == 1 then return 0 end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return -1 end
redis.call('HSET', KEYS[1], {{REPORTED_FIELD}}, '1')
redis.call('XADD', KEYS[3], '*', 'r', ARGV[1])
return 1
