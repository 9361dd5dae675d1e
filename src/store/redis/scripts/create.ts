import { BUCKETS, EVENT_JSON, EXTEND_TO, INDEX_RECIPIENT } from './fragments.js';

/** Creates a pending interaction. */
export const CREATE = `--[[
  create: writes a new pending interaction and publishes interaction.created.

  Guarantees: all or nothing. The record, its pending-list entry (scored by a fresh sequence number), its group
  entry, its recipient entry, its deadline entry, its ticket and its shared form schema are written in one step, and the event is
  published in the same step, so no subscriber hears of an ask that is not stored. The pending-list and deadline
  entries go into the ask's bucket (BUCKETS in fragments.ts), which the record's body names (member pb). An existing id or ticket
  changes nothing. The record and ticket expire at ARGV[3] (deadline + idle TTL), a safety net should nothing ever
  resolve the ask; the schema lives at least as long as the latest record using it.

  KEYS[1] record            i:<id>
  KEYS[2] pending zset      (of buckets)
  KEYS[3] deadlines zset    (the bucket index)
  KEYS[4] sequence counter  seq
  KEYS[5] group zset        g:<group_id>   (KEYS[1] again when the ask has no group)
  KEYS[6] ticket            t:<hash>       (KEYS[1] again when it has no ticket)
  KEYS[7] schema            s:<hash>       (KEYS[1] again when it has no schema)
  KEYS[8] recipient zset    rc:<channel>:<recipient> (KEYS[1] again when it is asked on no channel)

  ARGV[1] id
  ARGV[2] envelope (status p)
  ARGV[3] expire-at of the record and ticket, epoch ms
  ARGV[4] deadline, epoch ms
  ARGV[5] '1' when the ask has a group, else ''
  ARGV[6] '1' when it has a ticket, else ''
  ARGV[7] schema JSON, or '' when none
  ARGV[8] events channel
  ARGV[9] now, epoch ms
  ARGV[10] '1' when it is asked of a recipient on a channel (KEYS[8]), else ''
  ARGV[11..] the recipient zsets of the question's further surfaces (envelope part 9), full key names built by
           keys.ts under the same hash-tagged prefix (so in the same cluster slot); indexed like KEYS[8]

  Returns
    n > 0  created; n is its sequence number
    -1     the id already exists
    -2     the ticket is already in use
    an error reply when the id is longer than 255 bytes (nothing written)
]]
${EVENT_JSON}
${EXTEND_TO}
${INDEX_RECIPIENT}
${BUCKETS}
local id, text = ARGV[1], ARGV[2]
local expireAt = tonumber(ARGV[3])
local hasGroup, hasTicket, schema = ARGV[5] == '1', ARGV[6] == '1', ARGV[7]

if #id > 255 then return redis.error_reply('askgate: an interaction id is at most 255 bytes') end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if hasTicket and redis.call('EXISTS', KEYS[6]) == 1 then return -2 end

local seq = redis.call('INCR', KEYS[4])
local b = bucketAdd(KEYS[2], KEYS[3], seq, id, true, tonumber(ARGV[4]))
text = envelopeWithBucket(text, b)
redis.call('SET', KEYS[1], text)
redis.call('PEXPIREAT', KEYS[1], expireAt)
if hasGroup then redis.call('ZADD', KEYS[5], seq, id) end
if ARGV[10] == '1' then indexRecipient(KEYS[8], seq, id, expireAt, tonumber(ARGV[9])) end
for i = 11, #ARGV do
  indexRecipient(ARGV[i], seq, id, expireAt, tonumber(ARGV[9]))
end
if hasTicket then
  redis.call('SET', KEYS[6], id)
  redis.call('PEXPIREAT', KEYS[6], expireAt)
end
if schema ~= '' then
  if redis.call('SET', KEYS[7], schema, 'NX') then
    redis.call('PEXPIREAT', KEYS[7], expireAt)
  else
    extendTo(KEYS[7], expireAt, tonumber(ARGV[9]))
  end
else
  schema = false
end

redis.call('PUBLISH', ARGV[8], eventJson('interaction.created', id, text, schema))
return seq
`;
