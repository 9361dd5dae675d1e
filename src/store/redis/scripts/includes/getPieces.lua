--[[
  getPieces(key, field): the field's value joined with its pieces (pieceSize.lua), or false when the field is absent.
]]
local function getPieces(key, field)
  local value = redis.call('HGET', key, field)
  if not value then return false end
  local i = 1
  while true do
    local piece = redis.call('HGET', key, field .. '.' .. i)
    if not piece then return value end
    value = value .. piece
    i = i + 1
  end
end
