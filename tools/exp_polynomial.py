# The polynomial of rlx's float exp (runtime/llvm/exp_float.h): e^r on |r| <= ln2/2 by the degree-5
# polynomial of least maximum relative error (Remez exchange) with exp(0) exact, and the float ulp error.
# Usage: python3 tools/exp_polynomial.py [degree]   (numpy; prints the coefficients, highest degree first)
import os
import re
import sys

import numpy as np

HALF_LN2 = np.log(2) / 2
# The reduction's constants, as the kernels take them from exp_float.h.
_HEADER = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime", "llvm", "exp_float.h")).read()
LOG2E, LN2_HIGH, LN2_LOW = (float(re.search(name + r" = ([0-9.e+-]+)", _HEADER).group(1)) for name in ("kLog2e", "kLn2High", "kLn2Low"))


def remez(degree, lo, hi, exact=(), iterations=40):
    """Coefficients (lowest degree first) of p minimizing max |p(r) / e^r - 1| on [lo, hi] among those
    with p(r) = e^r at each r of `exact`, and that max. With p = L + z s (L the interpolant of e^r at
    `exact`, z the polynomial vanishing there), the error is w (s - g) with w = z / e^r and
    g = (e^r - L) / z: a weighted minimax problem for s, solved by Remez's exchange."""
    z = np.poly1d(list(exact), r=True) if exact else np.poly1d([1.0])
    L = np.poly1d(np.polyfit(list(exact), np.exp(list(exact)), len(exact) - 1)) if exact else np.poly1d([0.0])
    free = degree - len(exact)  # the degree of s
    n = free + 2
    grid = np.linspace(lo, hi, 400001)
    grid = grid[np.min(np.abs(grid[:, None] - np.array(list(exact) or [np.inf])[None, :]), axis=1) > 1e-7]
    weight = z(grid) / np.exp(grid)
    target = (np.exp(grid) - L(grid)) / z(grid)
    points = np.searchsorted(grid, (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (np.arange(n)[::-1] + 0.5) / n))
    for _ in range(iterations):
        # s(x_i) - g(x_i) = (-1)^i E / w(x_i): linear in s's coefficients and E.
        x, w, g = grid[points], weight[points], target[points]
        system = np.zeros((n, n))
        system[:, : free + 1] = x[:, None] ** np.arange(free + 1)
        system[:, free + 1] = -((-1.0) ** np.arange(n)) / w
        s = np.linalg.solve(system, g)[: free + 1]
        error = weight * (np.polyval(s[::-1], grid) - target)
        # The largest |error| of each run of one sign: the next reference points.
        extrema, start = [], 0
        for i in range(1, len(grid) + 1):
            if i == len(grid) or np.sign(error[i]) != np.sign(error[start]):
                run = np.arange(start, i)
                extrema.append(run[np.argmax(np.abs(error[run]))])
                start = i
        if len(extrema) >= n:
            extrema = np.array(extrema)
            best = max(range(len(extrema) - n + 1), key=lambda k: np.min(np.abs(error[extrema[k : k + n]])))
            points = extrema[best : best + n]
    p = L + z * np.poly1d(s[::-1])
    return p.coeffs[::-1], np.max(np.abs(error))


def fma32(a, b, c):
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


def reduce(x):
    """x = (n + 1/2) ln2 + r in float32 as both kernels compute it: n = x / ln2 rounded down, ln2 in two parts."""
    f32 = np.float32
    n = np.floor((x * f32(LOG2E)).astype(f32))
    middle = (n + f32(0.5)).astype(f32)
    r = fma32(middle, f32(-LN2_HIGH), x)
    return n, fma32(middle, f32(-LN2_LOW), r)


def pipeline(x, highest_first):
    """exp(x) as the JIT's expFloat and the attention kernel's exp16 compute it, in float32: sqrt(2) e^r
    (the coefficients times sqrt 2) times 2^n."""
    f32 = np.float32
    n, r = reduce(x)
    p = np.full_like(x, f32(highest_first[0] * np.sqrt(2)))
    for c in highest_first[1:]:
        p = fma32(p, r, np.full_like(x, f32(c * np.sqrt(2))))
    return (p * np.ldexp(1.0, n.astype(np.int64)).astype(f32)).astype(f32)


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    # exp(0) must be exactly 1: 0 reduces to about -ln2 / 2, where p is pinned to e^r.
    r_zero = float(reduce(np.zeros(1, np.float32))[1][0])
    coeffs, error = remez(degree, -HALF_LN2 * 1.0001, HALF_LN2 * 1.0001, exact=(r_zero,))
    highest_first = [float(c) for c in coeffs[::-1]]
    print(f"degree {degree}: max relative error {error:.3g}")
    print("coefficients, highest degree first:", ", ".join(repr(c) for c in highest_first))
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-87, 88, 2000000), rng.uniform(-1, 1, 1000000)]).astype(np.float32)
    exact = np.exp(x.astype(np.float64))
    ulp = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    err = np.abs(pipeline(x, highest_first).astype(np.float64) - exact) / ulp
    one = pipeline(np.zeros(1, np.float32), highest_first)[0]
    print(f"float32 exp: max {err.max():.2f} ulp, mean {err.mean():.3f} ulp, exp(0) = {float(one)!r}")


if __name__ == "__main__":
    main()
