import { RECORD } from './fragments.js';
import { TRAIL } from './trail-fragment.js';

/** Records a channel's message references on an interaction. */
export const SET_DELIVERY = `--[[
  set-delivery: stores the delivery references of an interaction's question message on one of its surfaces: the
  first surface's in envelope part 8, a further surface's as member d of its entry in part 11.

  Guarantees: rewrites only an existing record and keeps its expiry, so a record that already expired is never
  brought back, and one that will expire still does. Appends the audit event delivered (TRAIL in fragments.ts)
  in the same step, its surface the record's channel (body member ch).

  KEYS[1] record            i:<id>

  ARGV[1] delivery JSON
  ARGV[2] now, epoch ms (the audit event's time)
  ARGV[3] the audit event's detail, JSON text, or 'null'
  ARGV[4] '' for the first surface; else the further surface's channel (the event's surface then)
  ARGV[5] that surface's recipient ('' for none)

  Returns
     1  stored
    -1  no such record
    -2  no such surface
]]
${RECORD}
${TRAIL}
local text = redis.call('GET', KEYS[1])
if not text then return -1 end
local parts = splitRecord(text)
local surface = channelOf(parts)
if ARGV[4] == '' then
  parts[8] = ARGV[1]
else
  surface = cjson.encode(ARGV[4])
  -- Part 11 holds only objects of strings (and d, a map of strings), so cjson re-encodes it faithfully.
  if parts[11] == '' then return -2 end
  local extras = cjson.decode(parts[11])
  local found = false
  for _, s in ipairs(extras) do
    if s.ch == ARGV[4] and (s.rc or '') == ARGV[5] then
      s.d = cjson.decode(ARGV[1])
      found = true
      break
    end
  end
  if not found then return -2 end
  parts[11] = cjson.encode(extras)
end
trailAppend(parts, trailEntryOf('delivered', ARGV[2], surface, 'null', ARGV[3]))
local pttl = redis.call('PTTL', KEYS[1])
if pttl > 0 then
  redis.call('SET', KEYS[1], joinRecord(parts), 'PX', pttl)
else
  redis.call('SET', KEYS[1], joinRecord(parts))
end
return 1
`;
