import Foundation
/// A cart.
class Cart: Base, CartProtocol {
    var total: Int
    init(total: Int) { self.total = total }
    func add(_ x: Int) -> Int { return Helper.sum(total, x) }
}
protocol CartProtocol { func add(_ x: Int) -> Int }
struct Point { let x: Int }
enum Color { case red }
extension Cart { func clear() {} }
func top(a: Int) -> Int { return a + 1 }
