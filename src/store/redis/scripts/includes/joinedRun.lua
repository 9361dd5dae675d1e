--[[
  joinedRun(key): a run hash, flat { field, value, ... }, each pieced value (o p rs st th x, and every a:<id> slot:
  the fields setPieces writes) joined byte-exactly with its pieces f.1, f.2, ..., which are left out: what
  RunStore.get reads.
]]
local function isPieced(field)
  return field == 'o' or field == 'p' or field == 'rs' or field == 'st' or field == 'th' or field == 'x' or
    string.sub(field, 1, 2) == 'a:'
end
local function joinedRun(key)
  local flat = redis.call('HGETALL', key)
  local h = {}
  for i = 1, #flat, 2 do h[flat[i]] = flat[i + 1] end
  local out = {}
  for i = 1, #flat, 2 do
    local field = flat[i]
    -- A piece is f.<n> of a pieced field f present in the hash: the slot of a shard's ask id (a:<id>.<k>) is no piece.
    local base = string.match(field, '^(.+)%.[1-9][0-9]*$')
    if not (base and isPieced(base) and h[base]) then
      local value = flat[i + 1]
      if isPieced(field) then
        local n = 1
        while h[field .. '.' .. n] do
          value = value .. h[field .. '.' .. n]
          n = n + 1
        end
      end
      out[#out + 1] = field
      out[#out + 1] = value
    end
  end
  return out
end
