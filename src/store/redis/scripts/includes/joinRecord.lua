--[[
  joinRecord(parts): the envelope again (splitRecord's inverse), trailing empty parts dropped.
]]
local function joinRecord(parts)
  local n = 12
  while n > 2 and parts[n] == '' do n = n - 1 end
  return table.concat(parts, '\n', 1, n)
end
