package shop

import shop.helper.sum

/** A cart. */
class Cart(val total: Int) : Base(), ICart {
    fun add(x: Int): Int {
        return sum(total, x)
    }

    companion object {
        fun build() = Cart(0)
    }
}

interface ICart {
    fun add(x: Int): Int
}

object Registry {
    val items = listOf(1)
}

fun top(a: Int) = a + 1

enum class Color { RED }

typealias Name = String
