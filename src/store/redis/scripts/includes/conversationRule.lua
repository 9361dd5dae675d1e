--[[
  conversationRule(ch, rc): for a channel whose first surface's stored delivery leaves out its conversation when it
  equals the recipient, { conversation field, message field } (CONVERSATION_REFS in src/store/delivery-refs.ts);
  nil otherwise.
]]
local CONVERSATION_REFS = {{CONVERSATION_REFS}}
local function conversationRule(ch, rc)
  if type(ch) ~= 'string' or type(rc) ~= 'string' then return nil end
  return CONVERSATION_REFS[ch]
end
