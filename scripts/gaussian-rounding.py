#!/usr/bin/env python3
"""What the Gaussian's fixed-point rounding costs in accuracy (issue 4, twenty-sixth session).

Runs gaussian.cl's RGBA8 definition (GS_FX: taps n / 4096, clamp to edge, each horizontal sum
rounded to eighths or to quarters of a level, ties to even, the vertical sum exact, the blur
rounded to the nearest level) on two 160 x 120 frames (uniform noise, and a gradient with
Gaussian noise) for a few sigmas, against the double-precision blur with the unquantised taps
rounded to the nearest level: the largest difference, the share of values that differ, and the
share where the two roundings differ from each other. Pure Python (no numpy on the build
machine); a few seconds.
  python3 scripts/gaussian-rounding.py
"""
import math
import random

W, H = 160, 120


def taps(sigma):
    """The engine's taps (gaussian_taps): radius ceil(3 sigma), normalised."""
    r = math.ceil(3 * sigma)
    w = [math.exp(-x * x / (2 * sigma * sigma)) for x in range(-r, r + 1)]
    return [v / sum(w) for v in w]


def taps_q12(sigma):
    """gaussian_taps_q12: n_d = round(4096 w_d), n_0 = 4096 - 2 sum n_d; as a full kernel."""
    t = taps(sigma)
    r = len(t) // 2
    n = [0] * (r + 1)
    for d in range(1, r + 1):
        n[d] = int(math.floor(4096 * t[r + d] + 0.5))
    n[0] = 4096 - 2 * sum(n[1:])
    return [n[abs(d)] for d in range(-r, r + 1)]


def div_rne(v, shift):
    """v / 2^shift to nearest, ties to even (v >= 0)."""
    q = v >> shift
    rem = v - (q << shift)
    half = 1 << (shift - 1)
    return q + 1 if rem > half or (rem == half and q & 1) else q


def separable(img, k, mid):
    """Horizontal sums through mid(), then vertical sums; clamp to edge."""
    r = len(k) // 2
    tmp = [[mid(sum(k[i] * img[y][min(max(x + i - r, 0), W - 1)] for i in range(len(k))))
            for x in range(W)] for y in range(H)]
    return [[sum(k[i] * tmp[min(max(y + i - r, 0), H - 1)][x] for i in range(len(k)))
             for x in range(W)] for y in range(H)]


def fixed_point(img, sigma, shift):
    """The blur with each horizontal sum S1 rounded to S1 / 2^shift (9: eighths, 10: quarters)."""
    v = separable(img, taps_q12(sigma), lambda s: div_rne(s, shift))
    scale = 4096 * (1 << (12 - shift))
    return [[round(v[y][x] / scale) for x in range(W)] for y in range(H)]  # ties to even


def main():
    random.seed(1)
    frames = {
        "random": [[random.randrange(256) for x in range(W)] for y in range(H)],
        "gradient+noise": [[min(255, max(0, int(round(0.4 * y + x + random.gauss(0, 3)))))
                            for x in range(W)] for y in range(H)],
    }
    cells = W * H
    for sigma in (0.7, 1.0, 2.0, 4.3):
        for name, img in frames.items():
            exact = separable(img, taps(sigma), lambda s: s)
            eighths = fixed_point(img, sigma, 9)
            quarters = fixed_point(img, sigma, 10)

            def against_exact(a):
                d = [abs(a[y][x] - round(exact[y][x])) for y in range(H) for x in range(W)]
                return max(d), 100 * sum(1 for e in d if e) / cells

            m8, o8 = against_exact(eighths)
            m4, o4 = against_exact(quarters)
            apart = 100 * sum(1 for y in range(H) for x in range(W)
                              if eighths[y][x] != quarters[y][x]) / cells
            print(f"sigma {sigma} {name:15s} eighths: max {m8}, {o8:.2f} % off   quarters: "
                  f"max {m4}, {o4:.2f} % off   apart: {apart:.2f} %")


if __name__ == "__main__":
    main()
