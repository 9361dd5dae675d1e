/**
 * Claims the interactions whose deadline has passed.
 */
export const POP_DUE = `--[[
  pop-due: removes and returns the ids whose deadline is at or before now.

  Guarantees: each due id is returned to exactly one caller, once; concurrent callers split the due ids between
  them. The record itself stays pending: the caller expires it through resolve.

  KEYS[1] deadlines zset

  ARGV[1] now, epoch ms
  ARGV[2] the most ids to return

  Returns the ids, earliest deadline first (possibly empty)
]]
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
-- One ZREM per id: unpack() of a long list would overflow the Lua stack.
for _, id in ipairs(ids) do redis.call('ZREM', KEYS[1], id) end
return ids
`;
