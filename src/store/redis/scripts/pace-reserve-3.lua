--[[
  pace-reserve: reserves the send time of one call in an outbound budget shared by every process of one account —
  a Telegram bot, a Slack bot, a WhatsApp number, a Twilio sender (ChannelState's pacing, redis/channel-state.ts).

  Guarantees: the account's calls are spread over numbered slots, slot k at floor(k * 1000 / rate) ms (epoch), one
  call per slot, so any 1000 ms holds at most `rate` calls of all processes together. A call to a chat takes the
  first free slot at or after that chat's next free time and moves the chat's next free time to its slot +
  interval, so two calls to one chat are at least `interval` apart, and a chat that waits never holds up the others
  (its later slot leaves the earlier ones free). Nothing is sent before the account's pause (a 429 for the whole
  account) or the chat's pushed-back time. Times come from Redis TIME, so processes with skewed clocks still agree.

  KEYS[1] slots zset        pace:<platform>:<account>:slots     reserved slot numbers, scored by themselves
  KEYS[2] account pause     pace:<platform>:<account>:pause     epoch ms before which the account sends nothing
  KEYS[3] chat next         pace:<platform>:<account>:c:<chat>  epoch ms of the chat's next free time (KEYS[2]
                                                                again for a call not addressed to a chat, so every
                                                                key stays in the one cluster slot)

  ARGV[1] calls per second for the whole account (integer)
  ARGV[2] the interval between two calls to one chat, ms
  ARGV[3] '1' when KEYS[3] is a chat key, '' otherwise

  Returns {slot, wait}: the reserved slot (epoch ms, Redis time) and the wait until it, ms (>= 0)
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local slotName = function(k) return string.format('%.0f', k) end

-- Slots before now are spent; forgetting them keeps the walk below as short as the backlog.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. slotName(math.floor(now * rate / 1000)))

local earliest = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
if ARGV[3] == '1' then earliest = math.max(earliest, tonumber(redis.call('GET', KEYS[3]) or '0')) end

-- The first free slot at or after earliest: walk the taken ones in order until a gap.
local k = math.ceil(earliest * rate / 1000)
for _, taken in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], k, '+inf')) do
  local n = tonumber(taken)
  if n == k then k = k + 1 elseif n > k then break end
end
local slot = math.floor(k * 1000 / rate)
redis.call('ZADD', KEYS[1], k, slotName(k))
-- The set outlives its last reservation by a minute, then goes: an idle account leaves nothing behind.
redis.call('PEXPIRE', KEYS[1], slot - now + 60000)
local interval = tonumber(ARGV[2])
-- A chat without an interval keeps no next free time of its own (only a push-back gives it one).
if ARGV[3] == '1' and interval > 0 then
  -- Expires when it stops mattering: once its time has passed, a missing key means the same thing.
  redis.call('SET', KEYS[3], slot + interval, 'PX', slot - now + interval)
end
return {slot, slot - now}
