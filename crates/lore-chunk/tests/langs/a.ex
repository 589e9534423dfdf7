defmodule Shop.Cart do
  @moduledoc "A cart."
  @doc "Adds."
  def add(cart, x) do
    Helper.sum(cart.total, x)
  end
  defp private_fn(a), do: a
  defmacro m(x), do: x
end
