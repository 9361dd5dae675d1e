--[[
  firstDelivery(d, ch, rc): the first surface's stored delivery map (envelope part 8) with its conversation
  reference put back: the twin of expandFirstDelivery in src/store/delivery-refs.ts.
]]
--- @include "conversationRule"
local function firstDelivery(d, ch, rc)
  local rule = conversationRule(ch, rc)
  if rule and type(d) == 'table' and d[rule[1]] == nil and d[rule[2]] ~= nil then d[rule[1]] = rc end
  return d
end
