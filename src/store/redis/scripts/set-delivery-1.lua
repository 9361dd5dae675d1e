--[[
  set-delivery: stores the delivery references of an interaction's question message on one of its surfaces: the
  first surface's in envelope part 8, a further surface's as member d of its entry in part 11.

  Guarantees: rewrites only an existing record and keeps its expiry, so a record that already expired is never
  brought back, and one that will expire still does. Appends the audit event delivered (includes/trailAppend.lua)
  in the same step, its surface the record's channel (body member ch, written as 0: includes/ownChannelOf.lua) or
  the further surface's. In the same step the delivery lookup (src/store/redis/lookups.ts) loses the field of the
  references replaced (a re-send) and, while the question is pending, gains one for the new references' ref
  (<channel>:<ref> → id) unless the ref is the surface's recipient, ':' and a message part (found through the
  recipient index then); a resolved question gets none, as resolve has already removed its fields.

  KEYS[1] record            i:<id>

  ARGV[1] delivery JSON (src/store/delivery-refs.ts compactDelivery; on the first surface the script also leaves out
          the conversation reference equal to the record's recipient: includes/firstStored.lua)
  ARGV[2] now, epoch ms (the audit event's time)
  ARGV[3] the audit event's detail, JSON text, or 'null'
  ARGV[4] '' for the first surface; else the further surface's channel (the event's surface then)
  ARGV[5] that surface's recipient ('' for none)
  ARGV[6] delivery lookup bucket prefix (db:)
  ARGV[7] the interaction id

  Returns
     1  stored
    -1  no such record
    -2  no such surface
]]
--- @include "includes/splitRecord"
--- @include "includes/joinRecord"
--- @include "includes/trailAppend"
--- @include "includes/trailEntryOf"
--- @include "includes/channelOf"
--- @include "includes/ownChannelOf"
--- @include "includes/firstDelivery"
--- @include "includes/firstStored"
--- @include "includes/refOf"
--- @include "includes/refNeedsField"
--- @include "includes/dropDelivery"
--- @include "includes/lookupHash"
--- @include "includes/deliveryBuckets"

local text = redis.call('GET', KEYS[1])
if not text then return -1 end
local parts = splitRecord(text)
local surface = channelOf(parts)
local channel, replaced, recipient = nil, nil, ARGV[5]
if ARGV[4] == '' then
  if surface ~= 'null' then
    channel = cjson.decode(surface)
    recipient = cjson.decode(parts[2]).rc
  end
  if parts[8] ~= '' then replaced = firstDelivery(cjson.decode(parts[8]), channel, recipient) end
  -- The first surface's stored form leaves out a conversation equal to the recipient (includes/firstStored.lua).
  local stored = cjson.decode(ARGV[1])
  parts[8] = firstStored(stored, channel, recipient) and cjson.encode(stored) or ARGV[1]
else
  channel = ARGV[4]
  surface = cjson.encode(ARGV[4])
  -- Part 11 holds only objects of strings (and d, a map of strings), so cjson re-encodes it faithfully.
  if parts[11] == '' then return -2 end
  local extras = cjson.decode(parts[11])
  local found = false
  for _, s in ipairs(extras) do
    if s.ch == ARGV[4] and (s.rc or '') == ARGV[5] then
      replaced = s.d
      s.d = cjson.decode(ARGV[1])
      found = true
      break
    end
  end
  if not found then return -2 end
  parts[11] = cjson.encode(extras)
end
-- The first surface's event names the record's channel as 0 (includes/ownChannelOf.lua).
local eventSurface = ARGV[4] == '' and ownChannelOf(parts) or surface
trailAppend(parts, trailEntryOf({{AUDIT_EVENTS.delivered}}, ARGV[2], eventSurface, 'null', ARGV[3]))
redis.call('SET', KEYS[1], joinRecord(parts), 'KEEPTTL')
if channel then
  if replaced then dropDelivery(ARGV[6], channel, replaced, ARGV[7]) end
  local ref = refOf(cjson.decode(ARGV[1]))
  if ref and parts[1] == {{STATUS_CODES.pending}} and refNeedsField(ref, recipient) then
    local field = channel .. ':' .. ref
    redis.call('HSET', ARGV[6] .. (lookupHash(field) % DELIVERY_BUCKETS), field, ARGV[7])
  end
end
return 1
