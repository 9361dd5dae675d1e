import { RECORD } from './fragments.js';

/** Records a channel's message references on an interaction. */
export const SET_DELIVERY = `--[[
  set-delivery: stores the delivery references of an interaction's question message (envelope part 8).

  Guarantees: rewrites only an existing record and keeps its expiry, so a record that already expired is never
  brought back, and one that will expire still does.

  KEYS[1] record            i:<id>

  ARGV[1] delivery JSON

  Returns
     1  stored
    -1  no such record
]]
${RECORD}
local text = redis.call('GET', KEYS[1])
if not text then return -1 end
local parts = splitRecord(text)
parts[8] = ARGV[1]
local pttl = redis.call('PTTL', KEYS[1])
if pttl > 0 then
  redis.call('SET', KEYS[1], joinRecord(parts), 'PX', pttl)
else
  redis.call('SET', KEYS[1], joinRecord(parts))
end
return 1
`;
