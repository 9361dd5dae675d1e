--[[
  bucketEntries(member): a bucket's entries, in sequence order, as parallel arrays ids, flags, deadlines, raw entry
  bytes.
]]
--- @include "decodeDeadline"
local function bucketEntries(member)
  local ids, flags, dls, raws = {}, {}, {}, {}
  local pos = string.find(member, ':', 1, true) + 1
  local n = #member
  while pos <= n do
    local len = string.byte(member, pos)
    local stop = pos + len + 7
    local k = #ids + 1
    ids[k] = string.sub(member, pos + 1, pos + len)
    flags[k] = string.byte(member, pos + len + 1)
    dls[k] = decodeDeadline(member, pos + len + 2)
    raws[k] = string.sub(member, pos, stop)
    pos = stop + 1
  end
  return ids, flags, dls, raws
end
