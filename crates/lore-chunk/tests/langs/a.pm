package Shop::Cart;
use strict;
use constant LIMIT => 10;

# Makes a cart.
sub new {
    my ($class, %args) = @_;
    return bless { total => 0, %args }, $class;
}

sub add {
    my ($self, $x) = @_;
    $self->{total} += $x;
}

package Shop::Util {
    sub sum { return $_[0] + $_[1] }
}

1;
