--[[
  The channel lookups live in bucketed hashes: the recipient index rb:<n>:<b> and the delivery lookup db:<b>
  (src/store/redis/lookups.ts documents them, with the levels of the recipient index).

  lookupHash(text): the 32-bit h = h * 31 + byte of text's bytes, which picks a lookup's bucket. The twin of
  lookupHash in src/store/redis/lookups.ts; they must agree (test/store/redis-store.test.ts compares them).
]]
local function lookupHash(text)
  local h = 0
  for i = 1, #text do h = (h * 31 + string.byte(text, i)) % 4294967296 end
  return h
end
