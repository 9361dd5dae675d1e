--[[
  delivery-receipt: applies a platform's receipt (sent, delivered, read, failed) to the delivery of an interaction
  (envelope part 8, a flat JSON map of strings), the same rule as applyReceipt in src/store/common.ts.

  Guarantees: read, compare and write are one step, so two receipts racing (a webhook retried while the next status
  arrives, two processes) never move a delivery back: it moves forward only by rank, and failed is final. A receipt
  that fails the delivery of a pending question publishes interaction.delivery_failed in the same step. Keeps the
  record's expiry. A receipt that fails the delivery (pending or not) appends a delivery_failed audit event
  (includes/trailAppend.lua) in the same step, its surface the record's channel (written as 0:
  includes/ownChannelOf.lua) or the further surface's. Part 8 holds only string values, so cjson re-encodes it
  faithfully (no arrays to turn into {}).

  KEYS[1] record            i:<id>

  ARGV[1] the delivery ref the receipt names (the first surface's delivery ref in part 8, or a further surface's
          d in part 11; stored or implied: includes/refOf.lua)
  ARGV[2] the platform's status word
  ARGV[3] its rank in the platform's order (a number)
  ARGV[4] the state it puts the delivery in: sent | delivered | read | failed
  ARGV[5] the platform's time of the status, or ''
  ARGV[6] error code, or ''
  ARGV[7] error message, or ''
  ARGV[8] events channel
  ARGV[9] schema key prefix (the event carries the schema)
  ARGV[10] the interaction id
  ARGV[11] now, epoch ms (the audit event's time)
  ARGV[12] the audit event's detail, JSON text ({"code", "message", "status"})

  Returns
     2  failed now, on a pending question (event published)
     1  moved
     0  unchanged (late, repeated, or after failed)
    -1  no such record, or no delivery with that ref
]]
--- @include "includes/readRecord"
--- @include "includes/joinRecord"
--- @include "includes/trailAppend"
--- @include "includes/trailEntryOf"
--- @include "includes/ownChannelOf"
--- @include "includes/eventMessage"
--- @include "includes/refOf"
--- @include "includes/firstDelivery"
--- @include "includes/firstStored"

local text, parts, schema = readRecord(KEYS[1], ARGV[9])
if not text then return -1 end
local d, extras, at = nil, nil, nil
local firstCh, firstRc = nil, nil
if parts[8] ~= '' then
  -- The first surface's map may leave out its conversation (the recipient): firstDelivery puts it back.
  local ok, body = pcall(cjson.decode, parts[2])
  if ok then firstCh, firstRc = body.ch, body.rc end
  local first = firstDelivery(cjson.decode(parts[8]), firstCh, firstRc)
  if refOf(first) == ARGV[1] then d = first end
end
if not d and parts[11] ~= '' then
  extras = cjson.decode(parts[11])
  for i, s in ipairs(extras) do
    if type(s.d) == 'table' and refOf(s.d) == ARGV[1] then
      d, at = s.d, i
      break
    end
  end
end
if not d then return -1 end
if d['receipt'] == 'failed' then return 0 end
local rank = tonumber(ARGV[3])
if rank <= tonumber(d['status_rank'] or '0') then return 0 end
d['status'] = ARGV[2]
d['status_rank'] = ARGV[3]
d['receipt'] = ARGV[4]
if ARGV[5] ~= '' then d['status_at'] = ARGV[5] end
if ARGV[6] ~= '' then
  d['error_code'] = ARGV[6]
  d['error_message'] = ARGV[7]
end
-- The first surface's event names the record's channel as 0 (includes/ownChannelOf.lua).
local surface = ownChannelOf(parts)
if at then
  extras[at].d = d
  parts[11] = cjson.encode(extras)
  surface = cjson.encode(extras[at].ch)
else
  firstStored(d, firstCh, firstRc)
  parts[8] = cjson.encode(d)
end
if ARGV[4] == 'failed' then
  -- The surface whose message failed: the record's channel (body member ch), or the further surface's.
  trailAppend(parts, trailEntryOf({{AUDIT_EVENTS.deliveryFailed}}, ARGV[11], surface, 'null', ARGV[12]))
end
local updated = joinRecord(parts)
redis.call('SET', KEYS[1], updated, 'KEEPTTL')
if ARGV[4] == 'failed' and parts[1] == {{STATUS_CODES.pending}} then
  redis.call('PUBLISH', ARGV[8], eventMessage({{EVENT_TYPES.deliveryFailed}}, ARGV[10], updated, schema))
  return 2
end
return 1
