--[[
  RECIPIENT_LEVELS: how many buckets each level of the recipient index has (src/store/redis/lookups.ts).
]]
local RECIPIENT_LEVELS = {{RECIPIENT_LEVELS}}
