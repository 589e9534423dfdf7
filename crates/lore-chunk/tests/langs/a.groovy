package shop
/** A cart. */
class Cart extends Base implements ICart {
  int total = 0
  int add(int x) { return Helper.sum(total, x) }
}
interface ICart { int add(int x) }
def top(int a) { a + 1 }
trait Greeter { def greet(name) { "hi $name" } }
class CartSpec extends Specification {
  def "adds an item"() {
    expect:
    new Cart().add(1) == 1
  }
}
