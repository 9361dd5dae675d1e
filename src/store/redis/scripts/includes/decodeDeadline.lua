--[[
  decodeDeadline(s, at): the deadline (ms) encoded in the 6 bytes of s from position at (encodeDeadline.lua).
]]
local function decodeDeadline(s, at)
  local v = 0
  for i = at, at + 5 do v = v * 256 + string.byte(s, i) end
  return v
end
