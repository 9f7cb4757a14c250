"""The plane decomposition methods of :func:`permnet.gen.planes.decompose.ldi_planes`, declared once.

A plain tuple with no imports, so that every CLI command with a ``--method``
option offers the same choices without loading numpy at start-up.

* ``auto`` -- residue when S divides M, else gcd;
* ``formula3`` -- eq. (3) of Melhem (seed 000), valid for M = S^2 k, gcd(k, S) = 1;
* ``residue`` -- S divides M;
* ``gcd`` -- every M and S;
* ``colouring`` -- bipartite edge colouring of the LDI graph (König).
"""

PLANE_METHODS = ("auto", "formula3", "residue", "gcd", "colouring")
