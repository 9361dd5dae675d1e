--[[
  The bucketed pending list and deadline index. Sorted sets with one member per pending ask cost ~128 bytes a
  member once they outgrow the listpack encoding (skiplist node, dict entry, member sds), twice per ask. So asks
  are kept in buckets of BUCKET consecutive sequence numbers: bucket b = floor(seq / BUCKET) is ONE member of the
  pending zset, scored b, whose text is '<b>:' followed by one entry per ask still in it, in sequence order:

    [1 byte: id length][id][1 byte: seq % BUCKET, + 64 when the ask is listed][6 bytes: deadline ms, big-endian; 0 = none]

  (asks to the caller are in a bucket, for their deadline, but not listed; a deadline popped by pop-due is zeroed
  while the ask stays listed until it resolves). The deadlines zset is the index of the buckets that hold a
  deadline: member b (decimal), scored by the earliest deadline in bucket b when the score was written, so it may
  be earlier than the bucket's earliest deadline now, never later: resolve never re-scores (a resolved entry may
  have held the earliest deadline), and pop-due re-scores a bucket it finds nothing due in, so an early score costs
  one pass of a sweeper, once, and only if the bucket still holds asks when that time comes. Both zsets hold one
  member per BUCKET asks, and an entry costs its id + 8 bytes. A bucket only ever receives asks of its own sequence
  range, so it never holds more than BUCKET entries; an emptied bucket is removed from both zsets (nothing stays
  behind).

  A record remembers its bucket as the last member of its body JSON, ,"pb":<b>} (added by create / park-run,
  stripped by resolve), so resolve finds its entry in O(BUCKET) without a lookup. Every bucket write happens inside
  the one script of its transition. The helpers are the bucket*.lua, *Bucket.lua and *Deadline.lua includes beside
  this one.
]]
local BUCKET = 64
