--[[
  ownChannelOf(parts): an event's surface when it is the record's channel: '0' (the reader, eventOf in
  src/store/audit-trail.ts, reads it as body member ch, which never changes), or 'null' for a record without one.
]]
--- @include "channelOf"
local function ownChannelOf(parts)
  if channelOf(parts) == 'null' then return 'null' end
  return '0'
end
