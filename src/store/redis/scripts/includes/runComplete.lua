--[[
  runComplete(run, ready, generation, runId, retentionMs, nowMs, attempts): records, once, that the continuation of
  park `generation` of the run completed: a ready run turns resumed, a dying one killed, either leaves the ready-runs
  zset and keeps its hash `retentionMs` more; `attempts` ('' to keep the count) goes to field at. Anything else (done
  already, another park, no such run) changes nothing. Returns 1 resumed, 2 killed, 0 nothing to complete.
]]
local function runComplete(run, ready, generation, runId, retentionMs, nowMs, attempts)
  if redis.call('HGET', run, 'g') ~= generation then return 0 end
  local status = redis.call('HGET', run, 's')
  local code = 0
  if status == 'ready' then
    redis.call('HSET', run, 's', 'resumed', 'ra', nowMs)
    code = 1
  elseif status == 'dying' then
    redis.call('HSET', run, 's', 'killed', 'ra', nowMs)
    code = 2
  else
    return 0
  end
  if attempts ~= nil and attempts ~= '' then redis.call('HSET', run, 'at', attempts) end
  redis.call('ZREM', ready, runId)
  redis.call('PEXPIRE', run, tonumber(retentionMs))
  return code
end
