<?php
namespace Shop;
use Shop\Helper;
/** A cart. */
class Cart extends Base implements ICart {
  const MAX = 3;
  private $total;
  public function add($x) { return Helper::sum($this->total, $x); }
}
interface ICart { public function add($x); }
trait T { function t() {} }
function top($a) { return strlen($a); }
enum Suit { case Hearts; }
