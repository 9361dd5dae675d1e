import { RECORD } from './fragments.js';

/** Records a channel's message references on an interaction. */
export const SET_DELIVERY = `--[[
  set-delivery: stores the delivery references of an interaction's question message on one of its surfaces: the
  first surface's in envelope part 8, a further surface's as member d of its entry in part 9.

  Guarantees: rewrites only an existing record and keeps its expiry, so a record that already expired is never
  brought back, and one that will expire still does.

  KEYS[1] record            i:<id>

  ARGV[1] delivery JSON
  ARGV[2] '' for the first surface; else the further surface's channel
  ARGV[3] that surface's recipient ('' for none)

  Returns
     1  stored
    -1  no such record
    -2  no such surface
]]
${RECORD}
local text = redis.call('GET', KEYS[1])
if not text then return -1 end
local parts = splitRecord(text)
if ARGV[2] == '' then
  parts[8] = ARGV[1]
else
  -- Part 9 holds only objects of strings (and d, a map of strings), so cjson re-encodes it faithfully.
  if parts[9] == '' then return -2 end
  local extras = cjson.decode(parts[9])
  local found = false
  for _, s in ipairs(extras) do
    if s.ch == ARGV[2] and (s.rc or '') == ARGV[3] then
      s.d = cjson.decode(ARGV[1])
      found = true
      break
    end
  end
  if not found then return -2 end
  parts[9] = cjson.encode(extras)
end
local pttl = redis.call('PTTL', KEYS[1])
if pttl > 0 then
  redis.call('SET', KEYS[1], joinRecord(parts), 'PX', pttl)
else
  redis.call('SET', KEYS[1], joinRecord(parts))
end
return 1
`;
