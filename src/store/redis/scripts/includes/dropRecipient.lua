--[[
  dropRecipient(rcPrefix, channel, recipient, id): removes question id's recipient index field at every level.
]]
--- @include "recipientLevels"
--- @include "lookupHash"
local function dropRecipient(rcPrefix, channel, recipient, id)
  if type(channel) ~= 'string' or type(recipient) ~= 'string' then return end
  local who = channel .. ':' .. recipient
  local h = lookupHash(who)
  for _, n in ipairs(RECIPIENT_LEVELS) do
    redis.call('HDEL', rcPrefix .. n .. ':' .. (h % n), who .. ':' .. id)
  end
end
