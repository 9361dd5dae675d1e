import { RECORD } from './fragments.js';

/** One page of pending interactions, records included, in one round trip. */
export const LIST_PENDING = `--[[
  list-pending: one page of a pending index (the whole list or one group), oldest first.

  Guarantees: the page is read at one moment. The cursor is the last sequence number shown and the range excludes
  it, so interactions created or resolved between pages never make a still-pending one be skipped or shown twice.
  An index entry whose record is gone (dropped by the safety-net expiry) is removed on the way.

  KEYS[1] index zset        pending | g:<group_id>

  ARGV[1] cursor: the last sequence number already shown (0 for the first page)
  ARGV[2] limit
  ARGV[3] record key prefix
  ARGV[4] schema key prefix

  Returns { next, { id, envelope, schema }, ... }
    next  the cursor of the following page, or nil on the last page
]]
${RECORD}
local limit = tonumber(ARGV[2])
-- One row past the limit tells whether a next page exists.
local rows = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, limit + 1)
local page = { false }
local shown = 0
for i = 1, #rows, 2 do
  if shown == limit then
    page[1] = rows[i - 1]
    break
  end
  shown = shown + 1
  local id = rows[i]
  local text, parts, schema = readRecord(ARGV[3] .. id, ARGV[4])
  if not text then
    redis.call('ZREM', KEYS[1], id)
  elseif parts[1] == 'p' then
    page[#page + 1] = { id, text, schema }
  end
end
return page
`;
