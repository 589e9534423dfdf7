module Shop
"A cart."
struct Cart
  total::Int
end
function add(c::Cart, x)
  sum(c.total, x)
end
f(x) = x + 1
abstract type Base end
macro m(x) x end
end
