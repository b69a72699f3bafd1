#!/bin/sh
# The project's tests: calc.txt must hold the right sum.
if grep -qx '2+2=4' calc.txt 2>/dev/null; then
  echo "ok  calc"
  exit 0
fi
echo "FAIL calc: calc.txt says '$(cat calc.txt 2>/dev/null)', want '2+2=4'"
exit 1
