"""Independent checks for compiled OCS fabrics (shared by the fabric tests).

The walker below knows nothing of permnet's simulator: it follows a signal
with plain dictionaries, one cross-connect and one cable at a time.
"""

import numpy as np


def walk_planes(P, n, devices_ports, xc, cables, inputs, outputs, limit=64):
    """realised[y][k] by walking: enter (device, ingress), leave by the
    cross-connect, follow the cable if the egress is cabled, else the egress
    must be a receiver (plane, node).  -1 when the light is lost."""
    cable = {(int(fd), int(fp)): (int(td), int(tp)) for fd, fp, td, tp in cables}
    receiver = {}
    for y in range(P):
        for j in range(n):
            receiver[(int(outputs[y][j][0]), int(outputs[y][j][1]))] = (y, j)
    out = [[-1] * n for _ in range(P)]
    passes = [[0] * n for _ in range(P)]
    for y in range(P):
        for k in range(n):
            d, p = int(inputs[y][k][0]), int(inputs[y][k][1])
            for step in range(limit):
                e = int(xc[d][p])
                if e < 0:
                    break
                passes[y][k] += 1
                if (d, e) in cable:
                    d, p = cable[(d, e)]
                    continue
                if (d, e) in receiver:
                    yy, j = receiver[(d, e)]
                    out[y][k] = j if yy == y else -2
                break
    return np.array(out), np.array(passes)
