pragma solidity ^0.8.0;
/// A cart.
contract Cart is Base {
  uint total;
  event Added(uint x);
  function add(uint x) public returns (uint) { return helper(total, x); }
  modifier onlyOwner() { _; }
}
interface ICart { function add(uint x) external returns (uint); }
library L { function f() internal {} }
