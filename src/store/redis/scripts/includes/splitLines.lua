--[[
  splitLines(text, n): the first n newline-separated parts of text, '' for each missing one (a record's parts, a
  folded park's fields).
]]
local function splitLines(text, n)
  local parts = {}
  local start = 1
  for i = 1, n do
    local stop = string.find(text, '\n', start, true)
    if stop then
      parts[i] = string.sub(text, start, stop - 1)
      start = stop + 1
    else
      parts[i] = string.sub(text, start)
      start = #text + 2
    end
  end
  return parts
end
