# Adds.
function Add-Numbers {
  param($a, $b)
  return $a + $b
}
class Cart {
  [int]$Total
  [int] Add([int]$x) { return $this.Total + $x }
}
Add-Numbers 1 2
Import-Module $PSScriptRoot\lib\p.psm1 -DisableNameChecking
. $PSScriptRoot/Get-Planet.ps1
