import sys; print("1..0")
