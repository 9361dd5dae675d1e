--[[
  park-run: creates every ask of a park and parks their run, all or nothing.

  Guarantees: nothing is written unless every check passes (no record id in use, the run not parked,
  ready or dying already, and not owned by another identity). Then, in one step: each ask is written exactly as
  create-6.lua writes one (record, deadline, shared schema, and the pending list and group unless it is an
  ask to the caller, which no inbox shows), the run hash is reset for this park (the previous park's ask slots,
  attempt count and kill cause dropped, the generation incremented, one open slot a:<id> per ask, outstanding
  count = number of asks), its expiry set to the retention window, and interaction.created published for each ask.
  An answer can only arrive after this step, so the run always exists before any of its asks can settle it.

  Memory: the hash stays listpack-encoded. Fields holding their default are not written (k for tool, p, st and th
  when empty, at = 0, x), a handler target is stored as '=' and its name alone (rs), and the caller-sized values
  (o, p, rs, st, th) are stored in 64-byte pieces (includes/pieceSize.lua), so no value exceeds
  hash-max-listpack-value whatever the webhook URL, handler name, identity or state.

  Folded: a park of one ask whose run has no hash yet, when the caller passes its folded value (ARGV after the
  asks), writes no run hash: its run is one field of a folded-runs bucket (includes/foldedBucketKey.lua), unfolded
  into the hash by the step that first needs it (the answer's claim, a kill, a bound thread). A folded park is
  parked: a second park of its run is refused (-3) as a parked hash's is. A folded entry whose record is gone is
  dropped.

  The per-ask writes mirror create-6.lua (kept apart because create takes one record's keys in KEYS); the store
  contract suite and test/park exercise both.

  KEYS[1] run hash         r:<run_id>
  KEYS[2] pending zset     (of buckets: includes/bucketSize.lua; an ask to the caller is in its bucket, unlisted)
  KEYS[3] deadlines zset   (the bucket index)
  KEYS[4] sequence counter seq

  ARGV[1]  owner identity
  ARGV[2]  run kind: tool | agent
  ARGV[3]  parent run id, or ''
  ARGV[4]  resume target as stored in rs: its JSON (an object, so it starts with '{'), or '=' followed by the
           handler's name when the target is {"handler": name} alone (13 bytes less than its JSON)
  ARGV[5]  checkpoint state JSON, or ''
  ARGV[6]  run retention, ms
  ARGV[7]  now, epoch ms
  ARGV[8]  events channel
  ARGV[9]  chat thread JSON (a run reached over chat), or '' to keep the one bound by a turn
  ARGV[10] number of asks N
  then 11 values per ask: id, envelope, expire-at (ms), deadline (ms), record key, group key or '', schema key or
  '', schema JSON or '', '1' when listed in the pending list else '', the recipient index bucket prefix (rb:) or ''
  when asked of no recipient on a channel, and <channel>:<recipient> (indexed at the level the pending list's size
  calls for: includes/recipientAdd.lua; src/store/redis/lookups.ts)
  then, at F = 11 + N * 11: ARGV[F] the folded value (includes/foldedBucketKey.lua) when the park may be folded,
  else ''; ARGV[F+1] folded-runs level key (rf); ARGV[F+2] folded-runs bucket prefix (rf:); ARGV[F+3] interaction
  key prefix (i:); ARGV[F+4] the run id.

  Returns
    n > 0  parked; n is the run's generation (how many times it has parked)
    -1     an ask id already exists
    -3     the run is parked already (or its resume is under way)
    -4     the run belongs to another identity
    an error reply when an ask id is longer than 255 bytes (nothing written)
]]
--- @include "includes/eventMessage"
--- @include "includes/extendTo"
--- @include "includes/setPieces"
--- @include "includes/getPieces"
--- @include "includes/bucketAdd"
--- @include "includes/envelopeWithBucket"
--- @include "includes/recipientAdd"
--- @include "includes/foldedFind"
--- @include "includes/foldedAdd"

local run = KEYS[1]
local n = tonumber(ARGV[10])
local nowMs = tonumber(ARGV[7])
local F = 11 + n * 11
local foldValue, foldLevel, foldPrefix, recordPrefix, runId = ARGV[F], ARGV[F + 1], ARGV[F + 2], ARGV[F + 3], ARGV[F + 4]

local hashed = redis.call('EXISTS', run) == 1
local staleBucket, level = nil, 0
if hashed then
  local status = redis.call('HGET', run, 's')
  if status == 'parked' or status == 'ready' or status == 'dying' then return -3 end
  local owner = getPieces(run, 'o')
  if owner and owner ~= ARGV[1] then return -4 end
else
  -- No hash: the run may be parked folded (refused as a parked hash is), unless its record is gone (no park).
  local bucket, value
  bucket, value, level = foldedFind(foldLevel, foldPrefix, runId)
  if bucket then
    if redis.call('EXISTS', recordPrefix .. string.match(value, '^[^\n]*')) == 1 then return -3 end
    staleBucket = bucket
  end
end
for i = 0, n - 1 do
  local base = 11 + i * 11
  if #ARGV[base] > 255 then return redis.error_reply('askgate: an interaction id is at most 255 bytes') end
  if redis.call('EXISTS', ARGV[base + 4]) == 1 then return -1 end
end

if staleBucket then redis.call('HDEL', staleBucket, runId) end
-- A fresh run parked on one ask is folded (no hash; see includes/foldedBucketKey.lua): its first park, so generation 1.
local folded = not hashed and n == 1 and foldValue ~= ''
local generation = 1
if not folded then
  for _, field in ipairs(redis.call('HKEYS', run)) do
    if string.sub(field, 1, 2) == 'a:' then redis.call('HDEL', run, field) end
  end
  generation = redis.call('HINCRBY', run, 'g', 1)
  redis.call('HSET', run, 's', 'parked', 'n', n, 'ca', nowMs)
  -- Defaults are not stored: no k means tool, no at means 0 attempts, no p / st / x means none.
  if ARGV[2] == 'tool' then redis.call('HDEL', run, 'k') else redis.call('HSET', run, 'k', ARGV[2]) end
  redis.call('HDEL', run, 'at')
  setPieces(run, 'x', '')
  setPieces(run, 'o', ARGV[1])
  setPieces(run, 'p', ARGV[3])
  setPieces(run, 'rs', ARGV[4])
  setPieces(run, 'st', ARGV[5])
  -- A run started by a chat turn had its thread bound before the target parked it (bindThread); keep it.
  if ARGV[9] ~= '' then setPieces(run, 'th', ARGV[9]) end
end

for i = 0, n - 1 do
  local base = 11 + i * 11
  local id, text, expireAt, deadline = ARGV[base], ARGV[base + 1], tonumber(ARGV[base + 2]), ARGV[base + 3]
  local key, group, schemaKey, schema = ARGV[base + 4], ARGV[base + 5], ARGV[base + 6], ARGV[base + 7]
  local seq = redis.call('INCR', KEYS[4])
  local listed = ARGV[base + 8] == '1'
  text = envelopeWithBucket(text, bucketAdd(KEYS[2], KEYS[3], seq, id, listed, tonumber(deadline)))
  redis.call('SET', key, text)
  redis.call('PEXPIREAT', key, expireAt)
  if listed and group ~= '' then redis.call('ZADD', group, seq, id) end
  if ARGV[base + 9] ~= '' then recipientAdd(ARGV[base + 9], KEYS[2], ARGV[base + 10], id, seq) end
  if schemaKey ~= '' then
    if redis.call('SET', schemaKey, schema, 'NX') then
      redis.call('PEXPIREAT', schemaKey, expireAt)
    else
      extendTo(schemaKey, expireAt, nowMs)
    end
  else
    schema = false
  end
  if not folded then redis.call('HSET', run, 'a:' .. id, '') end
  redis.call('PUBLISH', ARGV[8], eventMessage({{EVENT_TYPES.created}}, id, text, schema))
end
if folded then
  foldedAdd(foldLevel, foldPrefix, runId, foldValue, level)
else
  redis.call('PEXPIRE', run, tonumber(ARGV[6]))
end
return generation
