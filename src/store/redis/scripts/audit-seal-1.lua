--[[
  audit-seal: appends the hashes a reader computed to an interaction's audit seal (envelope part 10: a JSON string
  of concatenated 64-character hex SHA-256 hashes, one per event from seq 1).

  Guarantees: a compare-and-set on the number of hashes already sealed, so of two readers sealing the same events
  one writes and the other changes nothing (they computed the same hashes from the same events). Keeps the
  record's expiry.

  KEYS[1] record            i:<id>

  ARGV[1] how many hashes the reader found sealed
  ARGV[2] the hashes to append, concatenated hex

  Returns
     1  sealed
     0  the seal moved since the reader's read; nothing changed
    -1  no such record
]]
--- @include "includes/splitRecord"
--- @include "includes/joinRecord"

local text = redis.call('GET', KEYS[1])
if not text then return -1 end
local parts = splitRecord(text)
local sealed = 0
if parts[10] ~= '' then sealed = math.floor((#parts[10] - 2) / 64) end
if sealed ~= tonumber(ARGV[1]) then return 0 end
if parts[10] == '' then
  parts[10] = '"' .. ARGV[2] .. '"'
else
  parts[10] = string.sub(parts[10], 1, -2) .. ARGV[2] .. '"'
end
redis.call('SET', KEYS[1], joinRecord(parts), 'KEEPTTL')
return 1
