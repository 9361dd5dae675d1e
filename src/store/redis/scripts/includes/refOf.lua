--[[
  refOf(d): a stored delivery map's ref — its ref, or the one the other references imply (derivedRef in
  src/store/delivery-refs.ts, which leaves ref out of the stored form when it is implied), or nil. Every read of
  envelope part 8 goes through firstDelivery before refOf.
]]
local function refOf(d)
  if type(d) ~= 'table' then return nil end
  if type(d['ref']) == 'string' then return d['ref'] end
  local m = d['message_id']
  if d['chat_id'] and m then return d['chat_id'] .. ':' .. m end
  if d['channel_id'] and m then return d['channel_id'] .. ':' .. m end
  if d['channel'] and d['ts'] then return d['channel'] .. ':' .. d['ts'] end
  if type(m) == 'string' then return m end
  return nil
end
