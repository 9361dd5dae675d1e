--[[
  unfoldRun(runKey, runId, levelKey, prefix, recordPrefix, retentionMs, onlyId, knownText): writes the run hash
  (which must not exist yet) from its folded entry and drops the entry; true when it did (foldedBucketKey.lua).
  With onlyId, only an entry of that interaction is unfolded; knownText is its record's envelope when the caller
  holds it.

  The hash is written in one HSET: it does not exist yet, so there are no old pieces to drop; a caller-sized value
  (o, rs, p, st) longer than a piece goes in pieces as setPieces would write them.
]]
--- @include "pieceSize"
--- @include "foldedFind"
--- @include "foldedFields"
local function unfoldRun(runKey, runId, levelKey, prefix, recordPrefix, retentionMs, onlyId, knownText)
  local bucket, value = foldedFind(levelKey, prefix, runId)
  if not bucket then return false end
  local id = string.match(value, '^[^\n]*')
  if onlyId and id ~= onlyId then return false end
  redis.call('HDEL', bucket, runId)
  local text = knownText or redis.call('GET', recordPrefix .. id)
  if not text then return false end
  local flat = foldedFields(value, text)
  local args = {}
  for i = 1, #flat, 2 do
    local field, v = flat[i], flat[i + 1]
    args[#args + 1] = field
    if (field == 'o' or field == 'rs' or field == 'p' or field == 'st') and #v > PIECE then
      args[#args + 1] = string.sub(v, 1, PIECE)
      local n = 1
      while n * PIECE < #v do
        args[#args + 1] = field .. '.' .. n
        args[#args + 1] = string.sub(v, n * PIECE + 1, (n + 1) * PIECE)
        n = n + 1
      end
    else
      args[#args + 1] = v
    end
  end
  redis.call('HSET', runKey, unpack(args))
  redis.call('PEXPIRE', runKey, retentionMs)
  return true
end
