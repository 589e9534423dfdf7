#import "Cart.h"
/// A cart.
@interface Cart : NSObject <CartProto>
- (int)add:(int)x;
@end
@implementation Cart
- (int)add:(int)x { return [Helper sum:self.total with:x]; }
+ (Cart *)build { return [[Cart alloc] init]; }
@end
int top(int a) { return a + 1; }
