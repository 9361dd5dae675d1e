--[[
  foldedFields(value, text): the run hash's fields, flat { field, value, ... } (values whole), from a folded entry's
  value and its record's envelope (foldedBucketKey.lua).
]]
--- @include "splitLines"
local function foldedFields(value, text)
  local p = splitLines(value, 5)
  local bodyStart = string.find(text, '\n', 1, true)
  local bodyEnd = string.find(text, '\n', bodyStart + 1, true)
  local body = cjson.decode(string.sub(text, bodyStart + 1, bodyEnd and bodyEnd - 1 or -1))
  local out = { 's', 'parked', 'g', '1', 'n', '1', 'o', body.ab, 'rs', p[2] }
  if type(body.ca) == 'number' then
    out[#out + 1] = 'ca'
    out[#out + 1] = string.format('%d', body.ca)
  end
  if p[3] ~= '' then out[#out + 1] = 'k'; out[#out + 1] = p[3] end
  if p[4] ~= '' then out[#out + 1] = 'p'; out[#out + 1] = p[4] end
  if p[5] ~= '' then out[#out + 1] = 'st'; out[#out + 1] = p[5] end
  out[#out + 1] = 'a:' .. p[1]
  out[#out + 1] = ''
  return out
end
