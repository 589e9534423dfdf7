namespace Shop.Cart {
  /// <summary>A cart.</summary>
  public class Cart : Base, ICart {
    private int total;
    public int Total { get; set; }
    public Cart(int t) { total = t; }
    public int Add(int x) { return Helper.Sum(total, x); }
  }
  public interface ICart { int Add(int x); }
  public enum Color { Red, Green }
  public struct Point { public int X; }
  public record Person(string Name);
}
