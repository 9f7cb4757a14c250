"""The compiled cycle loop of the network simulator (one numba function).

The model is described in :mod:`permnet.sim.netsim`; this module holds only
the loop.  It is a single function with no calls to other compiled helpers so
that ``simulate.py_func`` -- the same code run by CPython -- is an exact
plain-Python reference of the same model (its random numbers are numpy's
MT19937 stream, which numba reproduces bit for bit).

Indices
-------
channel ``ch = (u S + y) V + v``: VC v of the link from node u through
plane y.  The same index names the output VC at u (``owner``, ``credits``)
and the input VC buffer at ``planes[y, u]`` (``bpkt`` ...), so a credit is
returned to the channel a flit left.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# traffic kinds
UNIFORM, PERMUTATION, HOTSPOT, TRACE, MATRIX = 0, 1, 2, 3, 4
# stats vector fields
STAT_FIELDS = ("cycles", "deadlock", "created_window", "measured", "measured_done", "latency_sum", "hops_sum",
               "accepted_packets", "accepted_flits", "dropped", "created", "delivered", "in_flight",
               "last_progress")


@njit(cache=True, nogil=True)
def simulate(planes, up, rlen, rhops, V, B, wormhole, lanes, qcap, kind, dest, rate, size, hot, hot_frac, cdf,
             tc, ts, td, tsz, warmup, window, max_cycles, timeout, seed, logcap, eject_port=False, link_stages=0,
             credit_stages=0, input_first=False, two_stage=False, separate_va=False, stop=None):
    S, M = planes.shape
    NCH = M * S * V
    K = S * V + lanes
    np.random.seed(seed)
    # packets
    pcap = M * (qcap + lanes + S * V * B) + 1
    psrc = np.zeros(pcap, np.int64)
    pdst = np.zeros(pcap, np.int64)
    psize = np.zeros(pcap, np.int64)
    pt0 = np.zeros(pcap, np.int64)
    phops = np.zeros(pcap, np.int64)
    pmeas = np.zeros(pcap, np.uint8)
    pserial = np.zeros(pcap, np.int64)
    free = np.arange(pcap - 1, -1, -1).astype(np.int64)
    ftop = pcap
    # source queues and injection lanes
    sq = np.zeros((M, qcap), np.int64)
    sqh = np.zeros(M, np.int64)
    sqn = np.zeros(M, np.int64)
    lpkt = np.full((M, lanes), -1, np.int64)
    lflit = np.zeros((M, lanes), np.int64)
    lalloc = np.full((M, lanes), -1, np.int64)
    lovc = np.zeros((M, lanes), np.int64)
    nlane = np.zeros(M, np.int64)
    # input VC buffers (indexed by channel), output VC state
    bpkt = np.zeros((NCH, B), np.int64)
    bflit = np.zeros((NCH, B), np.int64)
    brdy = np.zeros((NCH, B), np.int64)
    bhead = np.zeros(NCH, np.int64)
    bcnt = np.zeros(NCH, np.int64)
    valloc = np.full(NCH, -1, np.int64)
    vovc = np.zeros(NCH, np.int64)
    owner = np.zeros(NCH, np.uint8)
    credits = np.full(NCH, B, np.int64)
    # credits on their way back: slot t % (credit_stages + 1) is added at the start of cycle t
    CS = credit_stages + 1
    cin = np.zeros((CS, NCH), np.int64)
    nocc = np.zeros(M, np.int64)
    rr = np.full((M, S), K - 1, np.int64)
    want = np.full(K, -1, np.int64)
    wovc = np.zeros(K, np.int64)
    wnew = np.zeros(K, np.uint8)
    nreq = np.zeros(S, np.int64)
    # input-first allocation: the VC each input port offered last that moved, and who may move now
    irr = np.full((M, S), V - 1, np.int64)
    able = np.zeros(K, np.uint8)
    # ... then the output and ejection arbiters go round the ports (S input ports, then the
    # lanes): each candidate's port, the candidate each port offers (a lane always its own),
    # and per plane and node the last port granted
    G = S + lanes
    port = np.empty(K, np.int64)
    for k in range(K):
        port[k] = k // V if k < S * V else S + k - S * V
    offer = np.full(G, -1, np.int64)
    offer[S:] = np.arange(S * V, K)
    prr = np.full((M, S), G - 1, np.int64)
    # two-stage allocation: the VC each input port offers this cycle (chosen last cycle, at the
    # end of the cycle loop), and what that choice reads: who could move at the start of the
    # cycle, whose head was visible then, and the round-robin state then; ejected flits reach
    # the user a cycle later (a register)
    poff = np.full((M, S), -1, np.int64)
    pable = np.zeros((M, S * V), np.uint8)
    pseen = np.zeros((M, S * V), np.uint8)
    pirr = np.full((M, S), V - 1, np.int64)
    ej_delay = 1 if two_stage else 0
    # separate VC allocation: the output VC (plane, VC) each head asks for, one round-robin
    # arbiter per output VC (the last candidate granted)
    vwant = np.full(K, -1, np.int64)
    vwvc = np.zeros(K, np.int64)
    vrr = np.full((M, S, V), K - 1, np.int64)
    pejrr = np.full(M, G - 1, np.int64)
    # ejection: the candidates that eject this cycle; with eject_port one per node, held from head to tail
    ejq = np.zeros(K, np.uint8)
    ejhold = np.full(M, -1, np.int64)
    ejrr = np.full(M, K - 1, np.int64)
    # results
    hlen = min(max_cycles + 2, 1 << 22)      # latencies beyond the last bucket are counted in it
    hist = np.zeros(hlen, np.int64)
    linkflits = np.zeros(M * S, np.int64)
    log = np.zeros((max(logcap, 1), 7), np.int64)
    nlog = 0
    created = 0
    created_window = 0
    measured = 0
    measured_done = 0
    lat_sum = 0
    hops_sum = 0
    acc_p = 0
    acc_f = 0
    dropped = 0
    delivered = 0
    last_progress = 0
    deadlock = 0
    tp = 0
    ntrace = tc.size
    t = 0
    while t < max_cycles:
        if stop is not None and stop[0] != 0:
            break                                 # the caller was interrupted: these results are discarded
        inwin = warmup <= t < warmup + window
        # credits sent 1 + credit_stages cycles ago arrive; this cycle's pops fill the freed slot
        cs = t % CS
        for ch in range(NCH):
            if cin[cs, ch] != 0:
                credits[ch] += cin[cs, ch]
                cin[cs, ch] = 0
        # packet generation
        if kind == TRACE:
            while tp < ntrace and tc[tp] <= t:
                n = ts[tp]
                if sqn[n] == qcap or ftop == 0:
                    dropped += 1
                else:
                    ftop -= 1
                    p = free[ftop]
                    psrc[p] = n
                    pdst[p] = td[tp]
                    psize[p] = tsz[tp]
                    pt0[p] = t
                    phops[p] = 0
                    pmeas[p] = 1
                    pserial[p] = created
                    measured += 1
                    sq[n, (sqh[n] + sqn[n]) % qcap] = p
                    sqn[n] += 1
                created += 1
                tp += 1
        else:
            for n in range(M):
                if np.random.random() >= rate:
                    continue
                if kind == UNIFORM:
                    d = int(np.random.random() * (M - 1))
                    if d >= n:
                        d += 1
                elif kind == PERMUTATION:
                    d = dest[n]
                elif kind == MATRIX:
                    # cdf[n] rises to n's share of the busiest row: a draw above it sends nothing,
                    # else the first destination whose cumulative share exceeds it
                    r = np.random.random()
                    if r >= cdf[n, M - 1]:
                        continue
                    lo = 0
                    hi = M - 1
                    while lo < hi:
                        mid = (lo + hi) // 2
                        if cdf[n, mid] > r:
                            hi = mid
                        else:
                            lo = mid + 1
                    d = lo
                else:
                    r = np.random.random()
                    d = int(np.random.random() * (M - 1))
                    if d >= n:
                        d += 1
                    if r < hot_frac and n != hot:
                        d = hot
                if d == n:
                    continue
                if inwin:
                    created_window += 1
                if sqn[n] == qcap or ftop == 0:
                    dropped += 1
                    continue
                ftop -= 1
                p = free[ftop]
                psrc[p] = n
                pdst[p] = d
                psize[p] = size
                pt0[p] = t
                phops[p] = 0
                pmeas[p] = 1 if inwin else 0
                pserial[p] = created
                created += 1
                if inwin:
                    measured += 1
                sq[n, (sqh[n] + sqn[n]) % qcap] = p
                sqn[n] += 1
        # NICs: the front packet of the source queue enters a free injection lane
        for n in range(M):
            if sqn[n] == 0 or nlane[n] == lanes:
                continue
            for j in range(lanes):
                if lpkt[n, j] < 0:
                    p = sq[n, sqh[n]]
                    sqh[n] = (sqh[n] + 1) % qcap
                    sqn[n] -= 1
                    lpkt[n, j] = p
                    lflit[n, j] = 0
                    lalloc[n, j] = -1
                    nlane[n] += 1
                    last_progress = t
                    break
        # routers
        if two_stage:
            pirr[:, :] = irr                    # the round-robin state next cycle's offers start from
        for n in range(M):
            if nocc[n] == 0 and nlane[n] == 0:
                if two_stage:
                    for k in range(S * V):      # an empty router: nothing can move, no head is seen
                        pable[n, k] = 0
                        pseen[n, k] = 0
                continue
            # requests, ejection, and who can move now (``able``): a request whose output VC is
            # free (a head) and has the credits it needs (the whole packet with virtual cut-through,
            # else one), or an arrived packet the ejection port may take (none is held, or it is
            # the held one). No grant of this cycle changes another output's owner or credits, so
            # this holds for the whole cycle.
            for y in range(S):
                nreq[y] = 0
            for k in range(K):
                want[k] = -1
                vwant[k] = -1
                able[k] = 0
                if k < S * V:
                    y = k // V
                    ch = (up[y, n] * S + y) * V + (k % V)
                    if bcnt[ch] == 0:
                        continue
                    pos = bhead[ch]
                    if brdy[ch, pos] > t:
                        continue
                    p = bpkt[ch, pos]
                    f = bflit[ch, pos]
                    a = valloc[ch]
                    ov = vovc[ch]
                else:
                    j = k - S * V
                    p = lpkt[n, j]
                    if p < 0:
                        continue
                    f = lflit[n, j]
                    a = lalloc[n, j]
                    ov = lovc[n, j]
                if a == -1:
                    hop = phops[p]
                    if hop == rlen[psrc[p], pdst[p]]:
                        a = S
                    else:
                        want[k] = rhops[psrc[p], pdst[p], hop]
                        wovc[k] = min(hop, V - 1)
                        wnew[k] = 1
                        och = (n * S + want[k]) * V + wovc[k]
                        need = 1 if wormhole else psize[p]
                        able[k] = 1 if owner[och] == 0 and credits[och] >= need else 0
                        if separate_va:
                            # the head asks for its output VC only; it can be offered next cycle
                            vwant[k] = want[k]
                            vwvc[k] = wovc[k]
                            want[k] = -1
                        else:
                            nreq[want[k]] += 1
                        continue
                if a == S:
                    ejq[k] = 1
                    able[k] = 1 if not eject_port or ejhold[n] < 0 or ejhold[n] == k else 0
                    continue
                want[k] = a
                wovc[k] = ov
                wnew[k] = 0
                nreq[a] += 1
                able[k] = 1 if credits[(n * S + a) * V + ov] >= 1 else 0
            if input_first:
                # each input port offers one of its VCs (round robin after the last one that moved)
                # among those that can move now; the others wait (a lane is a port)
                for y in range(S):
                    g = -1
                    if two_stage:
                        # this cycle's offer was chosen last cycle; keep what next cycle's reads
                        for v in range(V):
                            k = y * V + v
                            ch = (up[y, n] * S + y) * V + v
                            pable[n, k] = able[k]
                            pseen[n, k] = 1 if bcnt[ch] > 0 and brdy[ch, bhead[ch]] <= t else 0
                        offer[y] = poff[n, y]
                        if offer[y] >= 0:
                            g = offer[y] - y * V
                    else:
                        for i in range(1, V + 1):
                            v = (irr[n, y] + i) % V
                            if able[y * V + v] != 0:
                                g = v
                                break
                        offer[y] = -1 if g < 0 else y * V + g
                    for v in range(V):
                        k = y * V + v
                        if v != g:
                            if want[k] >= 0:
                                nreq[want[k]] -= 1
                            want[k] = -1
                            ejq[k] = 0
            # ejection: every requesting candidate, or with eject_port the held one or the round-robin winner
            if eject_port:
                g = -1
                if ejhold[n] >= 0:
                    if ejq[ejhold[n]] != 0:
                        g = ejhold[n]
                elif input_first:
                    for i in range(1, G + 1):
                        gp = (pejrr[n] + i) % G
                        k = offer[gp]
                        if k >= 0 and ejq[k] != 0:
                            g = k
                            break
                else:
                    for i in range(1, K + 1):
                        k = (ejrr[n] + i) % K
                        if ejq[k] != 0:
                            g = k
                            break
                for k in range(K):
                    ejq[k] = 1 if k == g else 0
                if g >= 0:
                    ejrr[n] = g
                    pejrr[n] = port[g]
            for k in range(K):
                if ejq[k] == 0:
                    continue
                ejq[k] = 0
                if k < S * V:
                    y = k // V
                    ch = (up[y, n] * S + y) * V + (k % V)
                    pos = bhead[ch]
                    p = bpkt[ch, pos]
                    f = bflit[ch, pos]
                else:
                    j = k - S * V
                    p = lpkt[n, j]
                    f = lflit[n, j]
                if eject_port:
                    ejhold[n] = -1 if f == psize[p] - 1 else k
                if k < S * V:
                    bhead[ch] = (bhead[ch] + 1) % B
                    bcnt[ch] -= 1
                    cin[cs, ch] += 1
                    nocc[n] -= 1
                    valloc[ch] = S
                    if input_first:
                        irr[n, y] = k % V
                else:
                    lflit[n, j] += 1
                    lalloc[n, j] = S
                last_progress = t
                if inwin:
                    acc_f += 1
                if f == psize[p] - 1:
                    if k < S * V:
                        valloc[ch] = -1
                    else:
                        lpkt[n, j] = -1
                        lalloc[n, j] = -1
                        nlane[n] -= 1
                    lat = t + 1 + ej_delay - pt0[p]
                    delivered += 1
                    if inwin:
                        acc_p += 1
                    if pmeas[p]:
                        measured_done += 1
                        lat_sum += lat
                        hops_sum += phops[p]
                        hist[min(lat, hlen - 1)] += 1
                    if nlog < logcap:
                        log[nlog, 0] = pserial[p]
                        log[nlog, 1] = psrc[p]
                        log[nlog, 2] = pdst[p]
                        log[nlog, 3] = pt0[p]
                        log[nlog, 4] = t + 1 + ej_delay
                        log[nlog, 5] = phops[p]
                        log[nlog, 6] = psize[p]
                        nlog += 1
                    free[ftop] = p
                    ftop += 1
            # output arbitration: round robin over the requests for each plane
            for y in range(S):
                if nreq[y] == 0:
                    continue
                start = rr[n, y]
                for i in range(1, (G if input_first else K) + 1):
                    if input_first:
                        gp = (prr[n, y] + i) % G
                        k = offer[gp]
                        if k < 0:
                            continue
                    else:
                        k = (start + i) % K
                    if want[k] != y or able[k] == 0:
                        continue
                    och = (n * S + y) * V + wovc[k]
                    # grant: move one flit from request k to channel och
                    rr[n, y] = k
                    if input_first:
                        prr[n, y] = port[k]
                    if k < S * V:
                        yy = k // V
                        ch = (up[yy, n] * S + yy) * V + (k % V)
                        pos = bhead[ch]
                        p = bpkt[ch, pos]
                        f = bflit[ch, pos]
                        bhead[ch] = (pos + 1) % B
                        bcnt[ch] -= 1
                        cin[cs, ch] += 1
                        nocc[n] -= 1
                        valloc[ch] = y
                        vovc[ch] = wovc[k]
                        if input_first:
                            irr[n, yy] = k % V
                    else:
                        j = k - S * V
                        p = lpkt[n, j]
                        f = lflit[n, j]
                        lflit[n, j] += 1
                        lalloc[n, j] = y
                        lovc[n, j] = wovc[k]
                    nd = planes[y, n]
                    pos = (bhead[och] + bcnt[och]) % B
                    bpkt[och, pos] = p
                    bflit[och, pos] = f
                    brdy[och, pos] = t + 1 + link_stages
                    bcnt[och] += 1
                    nocc[nd] += 1
                    credits[och] -= 1
                    if f == 0:
                        owner[och] = 1
                        phops[p] += 1
                    if f == psize[p] - 1:
                        owner[och] = 0
                        if k < S * V:
                            valloc[ch] = -1
                        else:
                            lpkt[n, j] = -1
                            lalloc[n, j] = -1
                            nlane[n] -= 1
                    if inwin:
                        linkflits[n * S + y] += 1
                    last_progress = t
                    break
            if separate_va:
                # VC allocation, from this cycle's requests (a head asking for an output VC
                # neither moved nor ejected this cycle; its output VC was free at the start of the
                # cycle, so no flit crossed it): per output VC, round robin after the last
                # candidate granted among the heads that ask for it and can have it (free, with
                # the credits they need); the head can cross in the next cycle at the earliest
                for y in range(S):
                    for w in range(V):
                        for i in range(1, K + 1):
                            k = (vrr[n, y, w] + i) % K
                            if vwant[k] != y or vwvc[k] != w or able[k] == 0:
                                continue
                            vrr[n, y, w] = k
                            owner[(n * S + y) * V + w] = 1
                            if k < S * V:
                                ch = (up[k // V, n] * S + k // V) * V + (k % V)
                                valloc[ch] = y
                                vovc[ch] = w
                            else:
                                lalloc[n, k - S * V] = y
                                lovc[n, k - S * V] = w
                            break
        if two_stage:
            # next cycle's offers: per input port, round robin after the last of its VCs that
            # moved (as of the start of this cycle), among those that could move this cycle and
            # those whose buffer had no head to show and receives one this cycle
            for n in range(M):
                for y in range(S):
                    g = -1
                    for i in range(1, V + 1):
                        v = (pirr[n, y] + i) % V
                        k = y * V + v
                        if pable[n, k] != 0:
                            g = k
                            break
                        ch = (up[y, n] * S + y) * V + v
                        if pseen[n, k] == 0 and bcnt[ch] > 0 and brdy[ch, bhead[ch]] <= t + 1:
                            g = k
                            break
                    poff[n, y] = g
        t += 1
        in_flight = pcap - ftop
        if in_flight > 0 and t - 1 - last_progress >= timeout:
            deadlock = 1
            break
        if kind == TRACE:
            if tp >= ntrace and in_flight == 0:
                t += ej_delay                     # the last flit reaches the user through the ejection register
                break
        elif t >= warmup + window and measured_done == measured:
            break
    stats = np.array([t, deadlock, created_window, measured, measured_done, lat_sum, hops_sum, acc_p, acc_f,
                      dropped, created, delivered, pcap - ftop, last_progress], np.int64)
    return stats, hist, linkflits, log[:nlog]
