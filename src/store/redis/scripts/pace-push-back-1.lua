--[[
  pace-push-back: the platform answered 429 with retry_after; nobody sends in its scope (a chat, or the whole
  account, as pace-reserve-3.lua keys them) until it has passed.

  Guarantees: only ever moves the time later (two 429s racing keep the later end), so every process that reserves
  afterwards waits it out (pace-reserve-3.lua reads this key).

  KEYS[1] the scope         pace:<platform>:<account>:c:<chat> for a chat, pace:<platform>:<account>:pause for the
                            whole account

  ARGV[1] retry_after, ms

  Returns the wait left in the scope, ms
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if now + wait > current then
  redis.call('SET', KEYS[1], now + wait, 'PX', wait)
  return wait
end
return current - now
