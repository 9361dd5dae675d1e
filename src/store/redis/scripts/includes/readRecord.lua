--[[
  readRecord(key, schemaPrefix): false when the key is gone, else the envelope, its parts (splitRecord) and its
  shared schema's JSON (false when it has none).
]]
--- @include "splitRecord"
local function readRecord(key, schemaPrefix)
  local text = redis.call('GET', key)
  if not text then return false end
  local parts = splitRecord(text)
  local schema = false
  if parts[5] ~= '' then schema = redis.call('GET', schemaPrefix .. cjson.decode(parts[5])) end
  return text, parts, schema
end
