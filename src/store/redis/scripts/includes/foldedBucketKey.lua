--[[
  Folded parks: a run parked on one ask, with no run hash of its own yet, kept as one field of a small bucketed hash.

  Why: a run hash is a key with an expiry, and every key costs about 130 bytes before its value (a main-dict and an
  expires-dict entry, the key's name, the object header, both dicts' bucket arrays) — more than half of what a
  pending async ask cost over a sync one. Most parks are one ask of a fresh run, and such a park holds nothing the
  record does not already say except its resume target (and, rarely, a kind, a parent or a state). So park-run
  writes it as one field of a folded-runs bucket instead: field = the run id, value =

    <interaction id> \n <rs as the run hash holds it> [\n <k> \n <p> \n <st>]   (trailing empty parts dropped)

  and everything else the hash would hold is derived: s = parked, g = 1 (no hash: the run's first park, as HINCRBY
  on a missing hash gives), n = 1, o = the record's asker (ab), ca = the record's created_at (ca), one open slot
  a:<interaction id>. Only a park whose value and run id each fit in 64 bytes is folded (a longer field or value
  would convert its bucket out of listpack); the caller decides (RedisRunStore.park) and every other park writes
  the hash.

  Buckets: rf:<level>:<n> (src/store/keys.ts), n = the first 32 bits of SHA-1(run id) mod 2^level. New entries go
  to the current level (rf, a number; absent = 0); when the bucket an entry would join holds FOLD_BUCKET_MAX fields
  already, the level goes up by one and the entry goes there. Levels only grow; an entry stays in its bucket until
  it leaves, so a lookup probes every level from the current one down (one HGET each: at 100,000 folded parks the
  level is about 11). A bucket holds about FOLD_BUCKET_MAX entries at most, well inside hash-max-listpack-entries
  (128), so an entry costs its bytes (~45) and a share of its bucket's key.

  Unfolding writes the run hash exactly as park-run would have (fields, pieces, retention from this write) and
  drops the entry, in the step that needs the hash: the answer's claim (resolve), a kill from a child run
  (run-kill), a chat thread bound (run-bind). So a run is a hash or a folded entry, never both, and every step
  after the park's answer sees the hash it always saw. An entry whose record is gone (pruned unresolved, e.g. the
  sweeper down past deadline + idle TTL) is no park: the next step that finds it drops it.

  foldedBucketKey(prefix, runId, level): the bucket of runId at level (prefix: rf:).
]]
local function foldedBucketKey(prefix, runId, level)
  local h = tonumber(string.sub(redis.sha1hex(runId), 1, 8), 16)
  return prefix .. string.format('%d', level) .. ':' .. string.format('%d', h % (2 ^ level))
end
