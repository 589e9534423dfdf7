-module(cart).
-export([add/2]).
%% Adds.
add(Cart, X) ->
    helper:sum(Cart, X).
-record(cart, {total}).
