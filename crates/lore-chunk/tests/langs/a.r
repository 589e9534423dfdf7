# Adds.
add <- function(a, b) {
  sum(a, b)
}
Cart <- setRefClass("Cart")
x = 3
