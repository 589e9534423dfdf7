#!/bin/bash
source ./lib.sh
# Adds two numbers.
add() {
  local a=$1
  echo $((a + $2))
}
function build {
  add 1 2
  helper_run "$@"
}
build
