require_relative "helper"
# A cart.
module Shop
  class Cart < Base
    def initialize(total)
      @total = total
    end
    def add(x)
      Helper.sum(@total, x)
      puts "hi"
    end
    def self.build; new(0); end
  end
end
def top(a) = a + 1
class Shop::Order
  def pay; end
end
