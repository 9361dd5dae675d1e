--[[
  firstStored(d, ch, rc): takes the conversation reference out of the first surface's delivery map d when it equals
  the recipient rc (true when it did): the twin of compactFirstDelivery in src/store/delivery-refs.ts.
]]
--- @include "conversationRule"
local function firstStored(d, ch, rc)
  local rule = conversationRule(ch, rc)
  if rule and d[rule[1]] == rc and d[rule[2]] ~= nil then
    d[rule[1]] = nil
    return true
  end
  return false
end
