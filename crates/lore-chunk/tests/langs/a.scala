package shop
/** A cart. */
class Cart(total: Int) extends Base with ICart {
  def add(x: Int): Int = Helper.sum(total, x)
}
trait ICart { def add(x: Int): Int }
object Cart { def build(): Cart = new Cart(0) }
case class Point(x: Int)
val top = 1
def f(a: Int): Int = a + 1
