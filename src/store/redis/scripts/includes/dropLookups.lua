--[[
  dropLookups(rcPrefix, dlPrefix, parts, id, recentPrefix, nowMs, idleMs): removes every recipient index and
  delivery lookup field of the record split into parts (its first surface: body members ch and rc, delivery part 8;
  further ones: part 11), and writes each delivered message's <channel>:<ref> -> id into the recently resolved
  window hash rr:<w> (w = floor(now / width), width = idle TTL / RECENT_WINDOWS, at least a second), which expires a
  width + idle TTL after its window: a reply or receipt still finds a resolved question while it reads.
]]
--- @include "dropRecipient"
--- @include "dropDelivery"
--- @include "firstDelivery"
local RECENT_WINDOWS = {{RECENT_WINDOWS}}
local function dropLookups(rcPrefix, dlPrefix, parts, id, recentPrefix, nowMs, idleMs)
  if not string.find(parts[2], '"ch":', 1, true) then return end
  local ok, body = pcall(cjson.decode, parts[2])
  if not ok then return end
  dropRecipient(rcPrefix, body.ch, body.rc, id)
  local recent, recentUntil = nil, 0
  if recentPrefix and recentPrefix ~= '' and (parts[8] ~= '' or parts[11] ~= '') then
    -- The resolved question's messages stay findable for its idle TTL, in a window hash that expires by itself.
    local width = math.max(math.ceil(idleMs / RECENT_WINDOWS), 1000)
    local w = math.floor(nowMs / width)
    recent, recentUntil = recentPrefix .. string.format('%d', w), (w + 1) * width + idleMs
  end
  if parts[8] ~= '' then
    dropDelivery(dlPrefix, body.ch, firstDelivery(cjson.decode(parts[8]), body.ch, body.rc), id, recent)
  end
  if parts[11] ~= '' then
    for _, s in ipairs(cjson.decode(parts[11])) do
      dropRecipient(rcPrefix, s.ch, s.rc, id)
      if type(s.d) == 'table' then dropDelivery(dlPrefix, s.ch, s.d, id, recent) end
    end
  end
  if recent and redis.call('EXISTS', recent) == 1 then redis.call('PEXPIREAT', recent, recentUntil) end
end
