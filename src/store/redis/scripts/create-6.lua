--[[
  create: writes a new pending interaction and publishes interaction.created.

  Guarantees: all or nothing. The record, its pending-list entry (scored by a fresh sequence number), its group
  entry, its recipient entry, its deadline entry and its shared form schema are written in one step,
  and the event is published in the same step, so no subscriber hears of an ask that is not stored. The
  pending-list and deadline entries go into the ask's bucket (includes/bucketSize.lua), which the record's body
  names (member pb). An existing id changes nothing. The record expires at ARGV[3] (deadline + idle TTL), a safety
  net should nothing ever resolve the ask; the schema lives at least as long as the latest record using it. The
  recipient entries are fields of bucketed hashes (src/store/redis/lookups.ts), with no expiry: resolve removes
  them. A callback ticket has no key: it names its record, which holds its secret's hash (src/core/ids.ts).

  KEYS[1] record            i:<id>
  KEYS[2] pending zset      (of buckets)
  KEYS[3] deadlines zset    (the bucket index)
  KEYS[4] sequence counter  seq
  KEYS[5] group zset        g:<group_id>   (KEYS[1] again when the ask has no group)
  KEYS[6] schema            s:<hash>       (KEYS[1] again when it has no schema)

  ARGV[1] id
  ARGV[2] envelope (status p)
  ARGV[3] expire-at of the record, epoch ms
  ARGV[4] deadline, epoch ms
  ARGV[5] '1' when the ask has a group, else ''
  ARGV[6] schema JSON, or '' when none
  ARGV[7] events channel
  ARGV[8] now, epoch ms
  ARGV[9] recipient index bucket prefix (rb:)
  ARGV[10..] <channel>:<recipient> of every surface asked of a recipient (the first, then envelope part 11),
           each indexed at the level the pending list's size calls for (includes/recipientAdd.lua)

  Returns
    n > 0  created; n is its sequence number
    -1     the id already exists
    an error reply when the id is longer than 255 bytes (nothing written)
]]
--- @include "includes/eventMessage"
--- @include "includes/extendTo"
--- @include "includes/bucketAdd"
--- @include "includes/envelopeWithBucket"
--- @include "includes/recipientAdd"

local id, text = ARGV[1], ARGV[2]
local expireAt = tonumber(ARGV[3])
local hasGroup, schema = ARGV[5] == '1', ARGV[6]

if #id > 255 then return redis.error_reply('askgate: an interaction id is at most 255 bytes') end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end

local seq = redis.call('INCR', KEYS[4])
local b = bucketAdd(KEYS[2], KEYS[3], seq, id, true, tonumber(ARGV[4]))
text = envelopeWithBucket(text, b)
redis.call('SET', KEYS[1], text)
redis.call('PEXPIREAT', KEYS[1], expireAt)
if hasGroup then redis.call('ZADD', KEYS[5], seq, id) end
for i = 10, #ARGV do
  recipientAdd(ARGV[9], KEYS[2], ARGV[i], id, seq)
end
if schema ~= '' then
  if redis.call('SET', KEYS[6], schema, 'NX') then
    redis.call('PEXPIREAT', KEYS[6], expireAt)
  else
    extendTo(KEYS[6], expireAt, tonumber(ARGV[8]))
  end
else
  schema = false
end

redis.call('PUBLISH', ARGV[7], eventMessage({{EVENT_TYPES.created}}, id, text, schema))
return seq
