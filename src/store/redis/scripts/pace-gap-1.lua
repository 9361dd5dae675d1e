--[[
  pace-gap: the last gate of shared pacing (ChannelState's pacing, redis/channel-state.ts): claims the right to call into one chat now,
  if the last call into it left at least an interval ago.

  Guarantees: check and claim are one step, so of two processes at the gate only one goes; the other is told how
  long to wait. Reservations (pace-reserve-3.lua) spread calls by their planned times; this gate holds the actual
  departure times apart, so a call that left late (a busy process) never puts the next one too close behind it.
  Times come from Redis TIME, shared by every process.

  KEYS[1] the chat's last departure   pace:<platform>:<account>:s:<chat>

  ARGV[1] the least gap between two calls into the chat, ms
  ARGV[2] '1' when a call just came back: its answer, not its departure, is what the next call keeps the gap from
          (a request that left the process late still reached the platform late); recorded whatever came before

  Returns 0 when the caller may call now (its departure is recorded), else the wait before trying again, ms
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
if ARGV[2] == '1' then
  redis.call('SET', KEYS[1], now, 'PX', interval)
  return 0
end
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if now - last < interval then return interval - (now - last) end
redis.call('SET', KEYS[1], now, 'PX', interval)
return 0
