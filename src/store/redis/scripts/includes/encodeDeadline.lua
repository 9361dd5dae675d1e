--[[
  encodeDeadline(ms): a bucket entry's deadline, 6 bytes big-endian (bucketSize.lua); 0 = none.
]]
local function encodeDeadline(ms)
  local bytes = {}
  for i = 6, 1, -1 do
    bytes[i] = ms % 256
    ms = math.floor(ms / 256)
  end
  return string.char(bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6])
end
