--[[
  channelOf(parts): the record's channel (body member ch) as JSON text, or 'null'.
]]
local function channelOf(parts)
  local ok, body = pcall(cjson.decode, parts[2])
  if ok and type(body) == 'table' and type(body.ch) == 'string' then return cjson.encode(body.ch) end
  return 'null'
end
