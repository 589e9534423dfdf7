module Shop where
import Data.List
-- | A cart.
data Cart = Cart { total :: Int }
class Addable a where
  add :: a -> Int -> a
instance Addable Cart where
  add c x = c
top :: Int -> Int
top a = a + 1
type Name = String
newtype Id = Id Int
