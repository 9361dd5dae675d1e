--[[
  report: a handler continuation's completion, recorded by the continuation doors (src/queue/handler-claims.ts) for
  the worker holding its lease, on the gateway's BullMQ connection. Under the lease only, in one atomic step, it
  marks the handler job reported — the mark is what keeps a completed continuation from being offered again — and
  records the completion one of two ways:
  - with a generation (ARGV[3]): a park's continuation with no chat reply to post first — the run's completion is
    recorded here, as run-complete-2.lua records it (includes/runComplete.lua), and nothing goes to the stream;
  - without (''): the report is appended to the completions stream, where the askgate worker posts the chat reply
    first and then records the completion (src/queue/completion-stream.ts, src/runs/completion.ts).

  KEYS[1] the handler job's hash
  KEYS[2] the handler job's lock (BullMQ's `<job>:lock`, holding the lease id of the worker that holds the job)
  KEYS[3] the completions stream of the job's shard (the same hash tag)
  KEYS[4] the run's hash r:<run_id> (the same hash tag; read only with a generation)
  KEYS[5] the ready-runs zset (likewise)

  ARGV[1] the report, JSON (appended to the stream only without a generation)
  ARGV[2] the lease id
  ARGV[3] the park's generation to complete here, or '' to append the report to the stream
  ARGV[4] run id (the ready-runs member)
  ARGV[5] run retention, ms
  ARGV[6] now, epoch ms
  ARGV[7] the attempt that completed (field at)

  Returns 1 recorded; 0 the job was reported already (nothing changes); -1 the lease is not the job's (it lapsed, or
  another worker holds the job now); -2 no such job.
]]
--- @include "includes/runComplete"

if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
if redis.call('HEXISTS', KEYS[1], {{REPORTED_FIELD}}) == 1 then return 0 end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return -1 end
redis.call('HSET', KEYS[1], {{REPORTED_FIELD}}, '1')
if ARGV[3] ~= '' then
  runComplete(KEYS[4], KEYS[5], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
else
  redis.call('XADD', KEYS[3], '*', 'r', ARGV[1])
end
return 1
