/**
 * Lua helpers spliced into several scripts. A record is one string, the envelope of `record-codec.ts`: parts joined
 * by `\n` (1 status letter, 2 body, 3 group, 4 ticket hash, 5 schema hash, 6 result, 7 resolved_at, 8 delivery,
 * 9 audit trail, 10 audit seal, 11 extra surfaces, 12 votes; every part but the status is JSON text or empty).
 * Scripts split and rejoin it with plain string operations and
 * never re-encode JSON (cjson would turn `[]` into `{}` and corrupt schemas); `cjson.decode` is used only on parts
 * 3 to 5, single JSON strings, to name keys, and `cjson.encode` only on whole strings. Both are exact for strings.
 */

/**
 * `splitRecord(text)`: the twelve parts ('' when absent).
 * `joinRecord(parts)`: the envelope again, trailing empty parts dropped.
 * `readRecord(key, schemaPrefix)`: false when the key is gone, else the envelope, its parts and its schema JSON
 * (false when it has none).
 */
/**
 * `splitLines(text, n)`: the first n newline-separated parts of `text`, '' for each missing one (a record's parts, a
 * folded park's fields). Included by RECORD and FOLDED_RUNS; a script holding both defines it twice, which Lua allows.
 */
export const SPLIT_LINES = `
local function splitLines(text, n)
  local parts = {}
  local start = 1
  for i = 1, n do
    local stop = string.find(text, '\\n', start, true)
    if stop then
      parts[i] = string.sub(text, start, stop - 1)
      start = stop + 1
    else
      parts[i] = string.sub(text, start)
      start = #text + 2
    end
  end
  return parts
end
`;

export const RECORD = `${SPLIT_LINES}
local function splitRecord(text)
  return splitLines(text, 12)
end

local function joinRecord(parts)
  local n = 12
  while n > 2 and parts[n] == '' do n = n - 1 end
  return table.concat(parts, '\\n', 1, n)
end

local function readRecord(key, schemaPrefix)
  local text = redis.call('GET', key)
  if not text then return false end
  local parts = splitRecord(text)
  local schema = false
  if parts[5] ~= '' then schema = redis.call('GET', schemaPrefix .. cjson.decode(parts[5])) end
  return text, parts, schema
end
`;

/**
 * `eventMessage(type, id, text, schema)`: the message published on the events channel, so a subscriber rebuilds the
 * record without another read: four fields joined by newlines, `type`, `id`, the schema's JSON text ('' for none)
 * and the whole envelope last (the only field that holds newlines). Nothing is JSON-encoded: escaping the envelope
 * cost the script a cjson pass and every subscriber a JSON.parse of every event (event-message.ts reads it).
 */
export const EVENT_MESSAGE = `
local function eventMessage(type, id, text, schema)
  return type .. '\\n' .. id .. '\\n' .. (schema or '') .. '\\n' .. text
end
`;

/**
 * `extendTo(key, atMs, nowMs)`: pushes `key`'s expiry out to `atMs` unless it already lasts longer (or forever).
 * Written with PTTL rather than `PEXPIREAT ... GT` so it runs on Redis before 7.
 */
export const EXTEND_TO = `
local function extendTo(key, atMs, nowMs)
  local pttl = redis.call('PTTL', key)
  if pttl < 0 then return end
  if nowMs + pttl < atMs then redis.call('PEXPIREAT', key, atMs) end
end
`;

/**
 * A run hash's long values, stored in pieces so the hash stays listpack-encoded. Redis turns a hash whose any value
 * is longer than `hash-max-listpack-value` (64 bytes by default) into a hashtable for good, which more than doubles
 * it (a run with a 93-byte webhook URL: 240 → 593 bytes). So a value longer than 64 bytes is split: field `f` holds
 * its first 64 bytes, `f.1` the next 64, and so on; the pieces are contiguous and joined byte-exactly. Used for the
 * run fields whose values are caller-sized (o, p, rs, st, th, x); an empty value is stored as no field at all.
 *
 * `setPieces(key, field, value)`: replaces the field's pieces ('' deletes them all).
 * `getPieces(key, field)`: the joined value, or false when the field is absent.
 */
export const PIECES = `
local PIECE = 64
local function setPieces(key, field, value)
  local i = 1
  while redis.call('HDEL', key, field .. '.' .. i) == 1 do i = i + 1 end
  if value == '' then
    redis.call('HDEL', key, field)
    return
  end
  redis.call('HSET', key, field, string.sub(value, 1, PIECE))
  local n = 1
  while n * PIECE < #value do
    redis.call('HSET', key, field .. '.' .. n, string.sub(value, n * PIECE + 1, (n + 1) * PIECE))
    n = n + 1
  end
end

local function getPieces(key, field)
  local value = redis.call('HGET', key, field)
  if not value then return false end
  local i = 1
  while true do
    local piece = redis.call('HGET', key, field .. '.' .. i)
    if not piece then return value end
    value = value .. piece
    i = i + 1
  end
end
`;

/**
 * `joinedRun(key)`: a run hash, flat { field, value, ... }, each pieced value (o p rs st th x, and every a:<id> slot;
 * the fields PIECES writes, and `PIECED` in src/park/run-store.ts) joined byte-exactly with its pieces, which are
 * left out: what RunStore.get reads.
 */
export const JOINED_RUN = `
-- The run hash, flat, each pieced value (o p rs st th x, and every a:<id> slot) joined with its pieces f.1, f.2, ...
local function isPieced(field)
  return field == 'o' or field == 'p' or field == 'rs' or field == 'st' or field == 'th' or field == 'x' or
    string.sub(field, 1, 2) == 'a:'
end
local function joinedRun(key)
  local flat = redis.call('HGETALL', key)
  local h = {}
  for i = 1, #flat, 2 do h[flat[i]] = flat[i + 1] end
  local out = {}
  for i = 1, #flat, 2 do
    local field = flat[i]
    -- A piece is f.<n> of a pieced field f present in the hash: the slot of a shard's ask id (a:<id>.<k>) is no piece.
    local base = string.match(field, '^(.+)%.[1-9][0-9]*$')
    if not (base and isPieced(base) and h[base]) then
      local value = flat[i + 1]
      if isPieced(field) then
        local n = 1
        while h[field .. '.' .. n] do
          value = value .. h[field .. '.' .. n]
          n = n + 1
        end
      end
      out[#out + 1] = field
      out[#out + 1] = value
    end
  end
  return out
end
`;

/**
 * The bucketed pending list and deadline index. Sorted sets with one member per pending ask cost ~128 bytes a
 * member once they outgrow the listpack encoding (skiplist node, dict entry, member sds), twice per ask. So asks
 * are kept in buckets of BUCKET consecutive sequence numbers: bucket b = floor(seq / BUCKET) is ONE member of the
 * `pending` zset, scored b, whose text is `<b>:` followed by one entry per ask still in it, in sequence order:
 *
 *   [1 byte: id length][id][1 byte: seq % BUCKET, + 64 when the ask is listed][6 bytes: deadline ms, big-endian; 0 = none]
 *
 * (asks to the caller are in a bucket, for their deadline, but not listed; a deadline popped by pop-due is zeroed
 * while the ask stays listed until it resolves). The `deadlines` zset is the index of the buckets that hold a
 * deadline: member b (decimal), scored by the earliest deadline in bucket b when the score was written, so it may
 * be earlier than the bucket's earliest deadline now, never later: resolve never re-scores (a resolved entry may have
 * held the earliest deadline), and pop-due re-scores a bucket it finds nothing due in, so an early score costs one
 * pass of a sweeper, once, and only if the bucket still holds asks when that time comes. Both zsets hold one member per BUCKET
 * asks, and an entry costs its id + 8 bytes. A bucket only ever receives asks of its own sequence range, so it
 * never holds more than BUCKET entries; an emptied bucket is removed from both zsets (nothing stays behind).
 *
 * A record remembers its bucket as the last member of its body JSON, `,"pb":<b>}` (added by create / park-run,
 * stripped by resolve), so resolve finds its entry in O(BUCKET) without a lookup. Every bucket write happens inside
 * the one script of its transition.
 *
 * `bucketAdd(P, D, seq, id, listed, deadline)`: appends the ask's entry (the id must be at most 255 bytes: the
 * scripts refuse a longer one before any write); returns its bucket b.
 * `withBucket(body, b)`: the body JSON with `"pb":b` appended; `envelopeWithBucket(text, b)`: the same inside a new
 * record's envelope; `bucketOfBody(body)`: b, or nil; `withoutBucket(body)`.
 * `bucketRead(P, b)`: the bucket's member text, or nil. `isBucket(member)`: false for a legacy member.
 * `bucketEntries(member)`: parallel arrays ids, flags, deadlines, raw entry bytes (empty for a legacy member).
 *
 * Legacy members (one id per ask, from before the buckets: in `pending` scored by sequence number, in `deadlines`
 * scored by deadline) are converted by migrate-indexes.ts when a store connects; until then resolve drops them as it
 * always did, pop-due pops a legacy deadline as it always did, and list-pending skips them.
 *
 * `bucketSave(P, D, b, old, raws, dls, drop)`: rewrites bucket b from its entries minus those with drop[k], and
 * re-scores (or removes) it in the deadline index; an empty bucket leaves both zsets.
 * `bucketRemove(P, D, b, id)`: drops one id's entry (resolve's hot path); true when it was there.
 */
export const BUCKETS = `
local BUCKET = 64
local NO_DEADLINE = string.char(0, 0, 0, 0, 0, 0)

local function encodeDeadline(ms)
  local bytes = {}
  for i = 6, 1, -1 do
    bytes[i] = ms % 256
    ms = math.floor(ms / 256)
  end
  return string.char(bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6])
end

local function decodeDeadline(s, at)
  local v = 0
  for i = at, at + 5 do v = v * 256 + string.byte(s, i) end
  return v
end

local function withBucket(body, b)
  return string.sub(body, 1, -2) .. ',"pb":' .. string.format('%d', b) .. '}'
end

-- A new record's envelope ('p', newline, body, then the optional parts) with the bucket in its body.
local function envelopeWithBucket(text, b)
  local bodyEnd = string.find(text, '\\n', 3, true)
  if bodyEnd then
    return string.sub(text, 1, 2) .. withBucket(string.sub(text, 3, bodyEnd - 1), b) .. string.sub(text, bodyEnd)
  end
  return string.sub(text, 1, 2) .. withBucket(string.sub(text, 3), b)
end

-- The bucket member is always the body's last: found by a plain search for its name from the end of the body.
local function bucketAt(body)
  local at = string.find(body, ',"pb":', math.max(1, #body - 26), true)
  if at and string.find(body, '^%d+}$', at + 6) then return at end
  return nil
end

local function bucketOfBody(body)
  local at = bucketAt(body)
  if at then return tonumber(string.sub(body, at + 6, -2)) end
  return nil
end

local function withoutBucket(body)
  local at = bucketAt(body)
  if at then return string.sub(body, 1, at - 1) .. '}' end
  return body
end

-- Bucket b's member. A legacy member (an id scored by its sequence number, written before buckets) may share the
-- score, so the member is picked by its prefix.
local function bucketRead(P, b)
  local prefix = string.format('%d', b) .. ':'
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', P, b, b)) do
    if string.sub(member, 1, #prefix) == prefix then return member end
  end
  return nil
end

local function isBucket(member)
  return string.find(member, '^%d+:') ~= nil
end

local function bucketAdd(P, D, seq, id, listed, deadline)
  local b = math.floor(seq / BUCKET)
  local entry = string.char(#id) .. id .. string.char(seq % BUCKET + (listed and 64 or 0)) .. encodeDeadline(deadline)
  local old = bucketRead(P, b)
  if old then
    redis.call('ZREM', P, old)
    redis.call('ZADD', P, b, old .. entry)
  else
    redis.call('ZADD', P, b, string.format('%d', b) .. ':' .. entry)
  end
  if deadline > 0 then
    local current = redis.call('ZSCORE', D, b)
    if not current or deadline < tonumber(current) then redis.call('ZADD', D, deadline, b) end
  end
  return b
end

local function bucketEntries(member)
  local ids, flags, dls, raws = {}, {}, {}, {}
  if not isBucket(member) then return ids, flags, dls, raws end
  local pos = string.find(member, ':', 1, true) + 1
  local n = #member
  while pos <= n do
    local len = string.byte(member, pos)
    local stop = pos + len + 7
    local k = #ids + 1
    ids[k] = string.sub(member, pos + 1, pos + len)
    flags[k] = string.byte(member, pos + len + 1)
    dls[k] = decodeDeadline(member, pos + len + 2)
    raws[k] = string.sub(member, pos, stop)
    pos = stop + 1
  end
  return ids, flags, dls, raws
end

local function bucketSave(P, D, b, old, raws, dls, drop)
  local kept, minDl = {}, nil
  for k = 1, #raws do
    if not drop[k] then
      kept[#kept + 1] = raws[k]
      if dls[k] > 0 and (not minDl or dls[k] < minDl) then minDl = dls[k] end
    end
  end
  redis.call('ZREM', P, old)
  if #kept == 0 then
    redis.call('ZREM', D, b)
    return
  end
  redis.call('ZADD', P, b, string.format('%d', b) .. ':' .. table.concat(kept))
  if minDl then redis.call('ZADD', D, minDl, b) else redis.call('ZREM', D, b) end
end

-- The hot path of every answer. The entry is found by a plain search for the id; when the id occurs once, right
-- after a length byte that matches, that is its entry (the record names this bucket, so its entry is in it).
-- Otherwise (an id inside another entry's bytes) the entries are walked. An emptied bucket leaves both zsets.
local function bucketRemove(P, D, b, id)
  local old = bucketRead(P, b)
  if not old then return false end
  local idLen = #id
  local head = string.find(old, ':', 1, true) + 1
  local n = #old
  local start = nil
  local at = string.find(old, id, head + 1, true)
  if at and string.byte(old, at - 1) == idLen and not string.find(old, id, at + 1, true) then
    start = at - 1
  elseif at then
    local pos = head
    while pos <= n do
      local len = string.byte(old, pos)
      if len == idLen and string.sub(old, pos + 1, pos + len) == id then
        start = pos
        break
      end
      pos = pos + len + 8
    end
  end
  if not start then return false end
  local stop = start + idLen + 7
  redis.call('ZREM', P, old)
  if head == start and stop == n then
    redis.call('ZREM', D, b)
    return true
  end
  redis.call('ZADD', P, b, string.sub(old, 1, start - 1) .. string.sub(old, stop + 1))
  -- The deadline index is not re-scored here: a score may only be early, never late, and pop-due repairs an early
  -- one the first time it comes due (one pass over the bucket). Re-scoring here walked all 64 entries whenever the
  -- removed one held the bucket's earliest deadline — every answer, when questions are answered oldest first.
  return true
end
`;

/**
 * `fragment` with every line indented two spaces, to splice it inside a function: a script then builds its helpers
 * only when it calls that function. Indented, they are also no top-level definitions to unused-definitions.ts.
 */
export function indented(fragment: string): string {
  return fragment
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
}
