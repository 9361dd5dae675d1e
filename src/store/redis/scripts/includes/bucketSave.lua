--[[
  bucketSave(P, D, b, old, raws, dls, drop): rewrites bucket b (its member old) from its entries minus those with
  drop[k], and re-scores (or removes) it in the deadline index; an empty bucket leaves both zsets.
]]
local function bucketSave(P, D, b, old, raws, dls, drop)
  local kept, minDl = {}, nil
  for k = 1, #raws do
    if not drop[k] then
      kept[#kept + 1] = raws[k]
      if dls[k] > 0 and (not minDl or dls[k] < minDl) then minDl = dls[k] end
    end
  end
  redis.call('ZREM', P, old)
  if #kept == 0 then
    redis.call('ZREM', D, b)
    return
  end
  redis.call('ZADD', P, b, string.format('%d', b) .. ':' .. table.concat(kept))
  if minDl then redis.call('ZADD', D, minDl, b) else redis.call('ZREM', D, b) end
end
