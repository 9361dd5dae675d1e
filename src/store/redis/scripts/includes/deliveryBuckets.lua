--[[
  DELIVERY_BUCKETS: how many hashes db:<b> the delivery lookup has (src/store/redis/lookups.ts).
]]
local DELIVERY_BUCKETS = {{DELIVERY_BUCKETS}}
