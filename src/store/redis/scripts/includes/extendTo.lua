--[[
  extendTo(key, atMs, nowMs): pushes key's expiry out to atMs unless it already lasts longer (or forever). Written
  with PTTL rather than PEXPIREAT ... GT so it runs on Redis before 7.
]]
local function extendTo(key, atMs, nowMs)
  local pttl = redis.call('PTTL', key)
  if pttl < 0 then return end
  if nowMs + pttl < atMs then redis.call('PEXPIREAT', key, atMs) end
end
