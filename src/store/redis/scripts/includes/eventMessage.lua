--[[
  eventMessage(type, id, text, schema): the message published on the events channel, so a subscriber rebuilds the
  record without another read: four fields joined by newlines, type, id, the schema's JSON text ('' for none) and
  the whole envelope last (the only field that holds newlines). Nothing is JSON-encoded: escaping the envelope cost
  the script a cjson pass and every subscriber a JSON.parse of every event (src/store/redis/event-message.ts reads
  it).
]]
local function eventMessage(type, id, text, schema)
  return type .. '\n' .. id .. '\n' .. (schema or '') .. '\n' .. text
end
