import 'helper.dart';
/// A cart.
class Cart extends Base implements ICart {
  int total;
  Cart(this.total);
  int add(int x) { return sum(total, x); }
  static Cart build() => Cart(0);
}
abstract class ICart { int add(int x); }
mixin M {}
enum Color { red }
int top(int a) => a + 1;
extension E on Cart { void clear() {} }
