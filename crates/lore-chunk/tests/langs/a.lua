local helper = require("helper")
-- A cart.
local Cart = {}
function Cart.new(total) return setmetatable({total = total}, Cart) end
function Cart:add(x) return helper.sum(self.total, x) end
local function top(a) return a + 1 end
M.f = function(a) return a end
return Cart
