import { RECORD, TRAIL } from './fragments.js';

/** Records a channel's message references on an interaction. */
export const SET_DELIVERY = `--[[
  set-delivery: stores the delivery references of an interaction's question message (envelope part 8).

  Guarantees: rewrites only an existing record and keeps its expiry, so a record that already expired is never
  brought back, and one that will expire still does. Appends the audit event delivered (TRAIL in fragments.ts)
  in the same step, its surface the record's channel (body member ch).

  KEYS[1] record            i:<id>

  ARGV[1] delivery JSON
  ARGV[2] now, epoch ms (the audit event's time)
  ARGV[3] the audit event's detail, JSON text, or 'null'

  Returns
     1  stored
    -1  no such record
]]
${RECORD}
${TRAIL}
local text = redis.call('GET', KEYS[1])
if not text then return -1 end
local parts = splitRecord(text)
parts[8] = ARGV[1]
trailAppend(parts, trailEntryOf('delivered', ARGV[2], channelOf(parts), 'null', ARGV[3]))
local pttl = redis.call('PTTL', KEYS[1])
if pttl > 0 then
  redis.call('SET', KEYS[1], joinRecord(parts), 'PX', pttl)
else
  redis.call('SET', KEYS[1], joinRecord(parts))
end
return 1
`;
