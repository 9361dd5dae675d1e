--[[
  chat-log-append: appends one entry to a chat log (a web chat conversation), keeping only its last entries.

  Guarantees: the append, the cap and the expiry happen together, so a conversation never grows past its cap and
  never outlives its retention, whichever process appends; the entry is published in the same step, so a page
  streaming the conversation hears of every entry that is stored, and of none that is not.

  KEYS[1] the log             chat:<channel>:<conversation>

  ARGV[1] the entry (the channel's own encoding, any string)
  ARGV[2] how many entries to keep
  ARGV[3] retention after the last entry, ms
  ARGV[4] the pub/sub channel of chat log appends     chat-events
  ARGV[5] the channel
  ARGV[6] the conversation

  Returns the conversation's length after the append
]]
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], cjson.encode({ c = ARGV[5], r = ARGV[6], m = ARGV[1] }))
return redis.call('LLEN', KEYS[1])
