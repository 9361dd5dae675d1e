--[[
  dropDelivery(dlPrefix, channel, d, id, recent): removes the delivery lookup field (dlPrefix: db:) of delivery map
  d when it names id; with recent (a window hash rr:<w>), writes <channel>:<ref> -> id there.
]]
--- @include "deliveryBuckets"
--- @include "lookupHash"
--- @include "refOf"
local function dropDelivery(dlPrefix, channel, d, id, recent)
  local ref = refOf(d)
  if type(channel) ~= 'string' or not ref then return end
  local field = channel .. ':' .. ref
  local key = dlPrefix .. (lookupHash(field) % DELIVERY_BUCKETS)
  if redis.call('HGET', key, field) == id then redis.call('HDEL', key, field) end
  if recent then redis.call('HSET', recent, field, id) end
end
