--[[
  recipientAdd(rcPrefix, pendingKey, who, id, seq): indexes question id under who (<channel>:<recipient>) in the
  recipient index (rcPrefix: rb:), at the smallest level whose buckets would hold about ENTRIES_PER_BUCKET entries
  at the size of the pending list pendingKey.
]]
--- @include "recipientLevels"
--- @include "lookupHash"
local ENTRIES_PER_BUCKET = {{ENTRIES_PER_BUCKET}}
local function recipientAdd(rcPrefix, pendingKey, who, id, seq)
  -- The pending list holds one member per 64 sequence numbers: its size x 64 bounds the pending asks from above.
  local estimate = redis.call('ZCARD', pendingKey) * 64
  local n = RECIPIENT_LEVELS[#RECIPIENT_LEVELS]
  for _, size in ipairs(RECIPIENT_LEVELS) do
    if estimate < size * ENTRIES_PER_BUCKET then n = size break end
  end
  redis.call('HSET', rcPrefix .. n .. ':' .. (lookupHash(who) % n), who .. ':' .. id, seq)
end
