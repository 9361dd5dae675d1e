--[[
  list-pending: one page of a pending index (the whole list or one group), oldest first.

  Guarantees: the page is read at one moment. The cursor is the last sequence number shown and the range excludes
  it, so interactions created or resolved between pages never make a still-pending one be skipped or shown twice.
  An index entry whose record is gone (dropped by the safety-net expiry) is removed on the way.

  The whole list is the bucketed pending zset (includes/bucketSize.lua): the page walks the buckets from the
  cursor's bucket upward (an emptied bucket is not there to walk), and in each the listed entries after the
  cursor, in sequence order. A group is a plain zset of ids scored by sequence number.

  KEYS[1] index zset        pending | g:<group_id>
  KEYS[2] deadlines zset    (the bucket index; used when a vanished entry leaves a bucket)

  ARGV[1] cursor: the last sequence number already shown (0 for the first page)
  ARGV[2] limit
  ARGV[3] record key prefix
  ARGV[4] schema key prefix
  ARGV[5] 'b' when KEYS[1] is the bucketed pending list, '' for a group

  Returns { next, { id, envelope, seq, schema }, ... }
    next  the cursor of the following page, or nil on the last page
    seq   the row's sequence number (the shard router merges pages of several shards by it and the record's age)
]]
--- @include "includes/readRecord"
--- @include "includes/bucketSize"
--- @include "includes/bucketEntries"
--- @include "includes/bucketSave"

local limit = tonumber(ARGV[2])
local page = { false }
local shown = 0

if ARGV[5] ~= 'b' then
  -- One row past the limit tells whether a next page exists.
  local rows = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, limit + 1)
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
    elseif parts[1] == {{STATUS_CODES.pending}} then
      page[#page + 1] = { id, text, rows[i + 1], schema }
    end
  end
  return page
end

local P, D = KEYS[1], KEYS[2]
local after = tonumber(ARGV[1])
local lastSeq = nil
local done = false
local from = math.floor(after / BUCKET)
local offset = 0
-- Buckets that lose vanished entries are rewritten after the walk, so the walk's offsets stay right.
local saves = {}
while not done do
  -- A few buckets at a time: each holds up to BUCKET entries.
  local buckets = redis.call('ZRANGEBYSCORE', P, from, '+inf', 'WITHSCORES', 'LIMIT', offset, 4)
  if #buckets == 0 then break end
  offset = offset + #buckets / 2
  for i = 1, #buckets, 2 do
    local member, b = buckets[i], tonumber(buckets[i + 1])
    -- Entries are in sequence order: each is appended by the step that took its sequence number.
    local ids, flags, dls, raws = bucketEntries(member)
    local drop, dropped = {}, false
    for k = 1, #ids do
      local seq = b * BUCKET + flags[k] % 64
      if flags[k] >= 64 and seq > after then
        if shown == limit then
          page[1] = string.format('%d', lastSeq)
          done = true
          break
        end
        shown = shown + 1
        lastSeq = seq
        local text, parts, schema = readRecord(ARGV[3] .. ids[k], ARGV[4])
        if not text then
          drop[k] = true
          dropped = true
        elseif parts[1] == {{STATUS_CODES.pending}} then
          page[#page + 1] = { ids[k], text, string.format('%d', seq), schema }
        end
      end
    end
    if dropped then saves[#saves + 1] = { b, member, raws, dls, drop } end
    if done then break end
  end
end
for _, save in ipairs(saves) do bucketSave(P, D, save[1], save[2], save[3], save[4], save[5]) end
return page
