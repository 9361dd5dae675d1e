--[[
  chat-log-append: appends one message to a web chat conversation, keeping only its last messages.

  Guarantees: the append, the cap and the expiry happen together, so a conversation never grows past its cap and
  never outlives its retention, whichever process appends; the message is published in the same step, so a page
  streaming the conversation hears of every message that is stored, and of none that is not.

  KEYS[1] the conversation    wc:<recipient>

  ARGV[1] the message, JSON
  ARGV[2] how many messages to keep
  ARGV[3] retention after the last message, ms
  ARGV[4] the pub/sub channel of web chat messages   wc-events
  ARGV[5] the recipient

  Returns the conversation's length after the append
]]
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], '{"r":' .. cjson.encode(ARGV[5]) .. ',"m":' .. ARGV[1] .. '}')
return redis.call('LLEN', KEYS[1])
