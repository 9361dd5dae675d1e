--[[
  run-bind: gives a run hash its owner (if it has none) and the chat thread of the turn that starts it, before the
  target parks it.

  Guarantees: a run owned by another identity is left alone (returns 0); otherwise the owner is set when absent,
  the thread replaced, and the hash's expiry set to the retention window, in one step (so a bound hash never
  lacks an expiry). A retried turn rebinds harmlessly. Owner and thread are stored in 64-byte pieces
  (includes/pieceSize.lua) so the hash stays listpack-encoded; park-run keeps a bound thread. A run parked folded
  (includes/foldedBucketKey.lua) is unfolded into its hash first.

  KEYS[1] run hash         r:<run_id>

  ARGV[1] owner identity
  ARGV[2] chat thread JSON
  ARGV[3] run retention, ms
  ARGV[4] run id
  ARGV[5] folded-runs level key (rf): a run parked folded is unfolded into its hash first
  ARGV[6] folded-runs bucket prefix (rf:)
  ARGV[7] interaction key prefix (i:)

  Returns 1 bound, 0 owned by another identity
]]
--- @include "includes/setPieces"
--- @include "includes/getPieces"
--- @include "includes/unfoldRun"

if redis.call('EXISTS', KEYS[1]) == 0 then
  unfoldRun(KEYS[1], ARGV[4], ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[3]), nil)
end
local owner = getPieces(KEYS[1], 'o')
if not owner then
  setPieces(KEYS[1], 'o', ARGV[1])
elseif owner ~= ARGV[1] then
  return 0
end
setPieces(KEYS[1], 'th', ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
