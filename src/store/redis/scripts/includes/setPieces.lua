--[[
  setPieces(key, field, value): replaces the field's pieces (pieceSize.lua); '' deletes them all.
]]
--- @include "pieceSize"
local function setPieces(key, field, value)
  local i = 1
  while redis.call('HDEL', key, field .. '.' .. i) == 1 do i = i + 1 end
  if value == '' then
    redis.call('HDEL', key, field)
    return
  end
  redis.call('HSET', key, field, string.sub(value, 1, PIECE))
  local n = 1
  while n * PIECE < #value do
    redis.call('HSET', key, field .. '.' .. n, string.sub(value, n * PIECE + 1, (n + 1) * PIECE))
    n = n + 1
  end
end
