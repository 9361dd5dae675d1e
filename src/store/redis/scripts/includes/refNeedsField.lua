--[[
  refNeedsField(ref, recipient): false when the ref is <recipient>:<part without :>, which has no delivery lookup
  field (it is found through the recipient index instead).
]]
local function refNeedsField(ref, recipient)
  if type(recipient) ~= 'string' or recipient == '' then return true end
  local head = recipient .. ':'
  if string.sub(ref, 1, #head) ~= head or #ref == #head then return true end
  return string.find(ref, ':', #head + 1, true) ~= nil
end
