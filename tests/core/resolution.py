"""What the resolution tests compare: a full-size terrain brought down to its preview's grid."""

import numpy as np


def block_mean(a, factor):
    """Mean over the (2·factor − 1)² cells centred on every factor-th cell (edges repeated)."""
    half = factor - 1
    p = np.pad(a, half, mode="edge")
    n = (a.shape[0] - 1) // factor + 1
    total = sum(
        p[half + dy : half + dy + factor * (n - 1) + 1 : factor, half + dx : half + dx + factor * (n - 1) + 1 : factor]
        for dy in range(-half, half + 1)
        for dx in range(-half, half + 1)
    )
    return total / (2 * half + 1) ** 2
