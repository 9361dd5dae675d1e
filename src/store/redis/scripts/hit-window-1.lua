--[[
  hit-window: counts one hit in a fixed-window counter shared by every process.

  Guarantees: the increment and the counter's expiry are set together, so a counter never outlives its window
  (a crash between INCR and PEXPIREAT cannot leave an immortal key).

  KEYS[1] window counter     w:<key>:<window start>

  ARGV[1] the window's end, epoch ms

  Returns the hits in this window, this one included (>= 1)
]]
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIREAT', KEYS[1], ARGV[1]) end
return count
