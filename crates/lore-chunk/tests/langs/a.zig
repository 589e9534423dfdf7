const std = @import("std");
/// A cart.
pub const Cart = struct {
    total: i32,
    pub fn add(self: *Cart, x: i32) i32 { return sum(self.total, x); }
};
pub fn top(a: i32) i32 { return a + 1; }
test "adds" { _ = top(1); }
