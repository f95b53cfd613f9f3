#!/usr/bin/env python3
"""Prints P of exp(r) ~ 1 + r + r^2 P(r) on [-ln2/2, ln2/2] for the float64
exp kernel (expF64.poly in math.go), highest degree first, and the relative
error of exp with P's float64 coefficients: mpmath's Chebyshev interpolant of
(e^r - 1 - r)/r^2, which is close to the minimax polynomial.

    python3 expf64fit.py   (needs mpmath)
"""
import mpmath as mp

mp.mp.prec = 200
DEGREE = 9
h = mp.log(2) / 2


def g(r):
    if abs(r) < mp.mpf("1e-20"):
        return mp.mpf(1) / 2 + r / 6
    return (mp.e**r - 1 - r) / r**2


poly = [float(c) for c in mp.chebyfit(g, [-h, h], DEGREE + 1)]
worst = mp.mpf(0)
for i in range(4001):
    r = -h + 2 * h * i / 4000
    p = mp.mpf(0)
    for c in poly:
        p = p * r + mp.mpf(c)
    worst = max(worst, abs((1 + r + r * r * p) / mp.e**r - 1))
print(", ".join(repr(c) for c in poly))
print("relative error 2^%.1f" % float(mp.log(worst, 2)))
