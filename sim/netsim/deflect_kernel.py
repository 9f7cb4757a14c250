"""The compiled cycle loop of the deflection-router network (one numba function).

The router is :func:`permnet.gen.routing.deflection.route_step` (the spec);
the network around it is stated in :mod:`permnet.sim.netsim` ("Deflection
router model"). As :mod:`permnet.sim.netsim.kernel`, this is a single
function with no calls to other compiled helpers, so ``simulate.py_func`` is
a plain-Python reference of the same loop with the same random stream.

Indices
-------
A packet is an index ``p`` into the packet arrays. ``pipe[t % K, v, y]`` is
the packet that reaches input y of node v in cycle t (K = hop cycles): a flit
leaving output y of node n in cycle t is written to
``pipe[t % K, planes[y, n], y]``, read again K cycles later. Priority key of
a flit: ``pkey[p]`` ("Priority" below; by default ``age * M + src``, the
spec's ``(age, src)``, larger first).

The spec's options (model only): ``neutral`` (``deflect="nearest"``, the
spec's :func:`~permnet.gen.routing.deflection.neutral_masks`; None: the
default) and ``B``, side-buffer flits per node (0: none). ``sb[n, :sbn[n]]``
is node n's side buffer in order of entry. A lane's neutral mask is 0 without
``neutral``, which makes every rule below the default's.

Priority (``priority``: the index of the spec's ``PRIORITIES``; the RTL
implements 0, age): ``pkey[p]`` is flit p's key in this cycle at its router,
larger first, computed at the start of the node's cycle for the flits in its
slots, in its side buffer and at its injection port: ``age * M + src``
(0, age), the spec's
:func:`~permnet.gen.routing.deflection.random_key` of ``(seed, t, serial)``
(1, random; ``serial`` the packet's creation index, so the key does not
depend on which other flits exist) or, for golden, ``GOLDEN_BASE + age * M +
src`` for a flit whose ``(src, pseq)`` is the spec's
:func:`~permnet.gen.routing.deflection.golden_id` of the cycle and ``epoch``,
else the random key (2). ``pseq[p]``: the flit's sequence number at its
source, counted at injection modulo ``GOLDEN_IDS``. The random key is
computed inline (the hash's 32-bit products split in 16-bit halves, so numba's
int64 and CPython's numpy int64 scalars, in the tests' run of the same loop,
agree without overflowing), and draws nothing from the traffic's
random stream: the traffic is the same for every priority.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from permnet.gen.routing.deflection import EJECT_DEPTH, GOLDEN_BASE, GOLDEN_IDS

# stats vector fields
STAT_FIELDS = ("cycles", "created_window", "measured", "measured_done", "latency_sum", "hops_sum", "accepted_packets",
               "dropped", "created", "delivered", "in_flight", "dist_sum", "deflected_sum", "hops_max",
               "hops_max_in_flight", "inject_waiting", "inject_stalled", "eject_missed", "eject_missed_full",
               "side_entered")
# in the measurement window: node-cycles with a packet at the injection port / those with no free slot
# for it; flits at their destination not ejected (they leave on an output) / of them, those whose port's
# queue was full (the others lost to a flit for n of higher priority on the same port); side-buffer entries
# delivery log columns
LOG_FIELDS = ("serial", "src", "dst", "created", "injected", "handshake", "node", "port", "hops", "deflections")

UNIFORM, PERMUTATION, HOTSPOT, TRACE, MATRIX = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def simulate(planes, masks, dist, E, ideal, K, age_max, qcap, kind, dest, rate, hot, hot_frac, cdf, tc, ts, td,
             warmup, window, max_cycles, seed, logcap, ej_ready, stop=None, neutral=None, B=0, priority=0,
             epoch=1):
    S, M = planes.shape
    DEPTH = EJECT_DEPTH
    np.random.seed(seed)
    # packets: source queues, links (M S K), ejection queues (M E DEPTH), side buffers (M B)
    pcap = M * (qcap + S * K + E * DEPTH + B) + 1
    psrc = np.zeros(pcap, np.int64)
    pdst = np.zeros(pcap, np.int64)
    pt0 = np.zeros(pcap, np.int64)
    ptin = np.zeros(pcap, np.int64)
    page = np.zeros(pcap, np.int64)
    phops = np.zeros(pcap, np.int64)
    pdefl = np.zeros(pcap, np.int64)
    pnode = np.zeros(pcap, np.int64)
    pport = np.zeros(pcap, np.int64)
    pmeas = np.zeros(pcap, np.uint8)
    pserial = np.zeros(pcap, np.int64)
    pkey = np.zeros(pcap, np.int64)
    pseq = np.zeros(pcap, np.int64)
    nseq = np.zeros(M, np.int64)
    H32 = 0xFFFFFFFF
    hseed = seed & H32
    free = np.arange(pcap - 1, -1, -1).astype(np.int64)
    ftop = pcap
    sq = np.zeros((M, qcap), np.int64)
    sqh = np.zeros(M, np.int64)
    sqn = np.zeros(M, np.int64)
    # links, ejection queues, one router's lanes
    pipe = np.full((K, M, S), -1, np.int64)
    cur = np.full((M, S), -1, np.int64)
    eq = np.zeros((M, E, DEPTH), np.int64)
    eqh = np.zeros((M, E), np.int64)
    eqn = np.zeros((M, E), np.int64)
    room = np.zeros(E, np.uint8)
    lane = np.full(S, -1, np.int64)
    lmask = np.zeros(S, np.int64)
    lneut = np.zeros(S, np.int64)
    sb = np.full((M, max(B, 1)), -1, np.int64)
    sbn = np.zeros(M, np.int64)
    inj_wait = 0
    inj_stall = 0
    ej_miss = 0
    ej_miss_full = 0
    side_in = 0
    out = np.full(S, -1, np.int64)
    placed = np.zeros(S, np.uint8)
    nst = 0
    while (1 << (nst + 1)) <= S:
        nst += 1
    nready = ej_ready.shape[0]
    # results
    hlen = min(max_cycles + 2, 1 << 22)
    hist = np.zeros(hlen, np.int64)
    linkflits = np.zeros(M * S, np.int64)
    log = np.zeros((max(logcap, 1), 10), np.int64)
    nlog = 0
    created = 0
    created_window = 0
    measured = 0
    measured_done = 0
    lat_sum = 0
    hops_sum = 0
    dist_sum = 0
    defl_sum = 0
    hops_max = 0
    acc_p = 0
    dropped = 0
    delivered = 0
    tp = 0
    ntrace = tc.size
    t = 0
    while t < max_cycles:
        if stop is not None and stop[0] != 0:
            break                                 # the caller was interrupted: these results are discarded
        inwin = warmup <= t < warmup + window
        # packet generation (as the VC kernel: same kinds, same random stream)
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
                    pt0[p] = t
                    phops[p] = 0
                    pdefl[p] = 0
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
                pt0[p] = t
                phops[p] = 0
                pdefl[p] = 0
                pmeas[p] = 1 if inwin else 0
                pserial[p] = created
                created += 1
                if inwin:
                    measured += 1
                sq[n, (sqh[n] + sqn[n]) % qcap] = p
                sqn[n] += 1
        # the flits that reach the routers' inputs this cycle; this cycle's outputs reuse the slot
        slot = t % K
        # the golden packet id of the cycle (priority 2): the spec's golden_id(t, M, epoch)
        gep = t // epoch
        gsrc = gep % M
        gseq = (gep // M) % GOLDEN_IDS
        for n in range(M):
            for y in range(S):
                cur[n, y] = pipe[slot, n, y]
                pipe[slot, n, y] = -1
        for n in range(M):
            # ejection queues: room at the start of the cycle, then the user's handshake
            for e in range(E):
                room[e] = 1 if eqn[n, e] < DEPTH else 0
                if eqn[n, e] == 0:
                    continue
                if t < nready and ej_ready[t, n, e] == 0:
                    continue
                p = eq[n, e, eqh[n, e]]
                eqh[n, e] = (eqh[n, e] + 1) % DEPTH
                eqn[n, e] -= 1
                delivered += 1
                if inwin:
                    acc_p += 1
                if phops[p] > hops_max:
                    hops_max = phops[p]
                if pmeas[p]:
                    lat = t + 1 - pt0[p]
                    measured_done += 1
                    lat_sum += lat
                    hops_sum += phops[p]
                    dist_sum += dist[psrc[p], pdst[p]]
                    defl_sum += pdefl[p]
                    hist[min(lat, hlen - 1)] += 1
                if nlog < logcap:
                    log[nlog, 0] = pserial[p]
                    log[nlog, 1] = psrc[p]
                    log[nlog, 2] = pdst[p]
                    log[nlog, 3] = pt0[p]
                    log[nlog, 4] = ptin[p]
                    log[nlog, 5] = t
                    log[nlog, 6] = pnode[p]
                    log[nlog, 7] = pport[p]
                    log[nlog, 8] = phops[p]
                    log[nlog, 9] = pdefl[p]
                    nlog += 1
                free[ftop] = p
                ftop += 1
            occupied = 0
            for y in range(S):
                lane[y] = cur[n, y]
                if lane[y] >= 0:
                    occupied += 1
            if occupied == 0 and sqn[n] == 0 and sbn[n] == 0:
                continue
            # this cycle's keys (module doc, "Priority"): the slots' flits, the side buffer's, the offered one
            if sqn[n] > 0:
                p = sq[n, sqh[n]]
                page[p] = 0
                pseq[p] = nseq[n]
            for j in range(S + sbn[n] + 1):
                if j < S:
                    p = lane[j]
                elif j < S + sbn[n]:
                    p = sb[n, j - S]
                else:
                    p = sq[n, sqh[n]] if sqn[n] > 0 else -1
                if p < 0:
                    continue
                if priority == 0:
                    pkey[p] = page[p] * M + psrc[p]
                    continue
                # random_key(seed, t, serial): three lowbias32 rounds, x * m mod 2^32 in 16-bit halves
                hx = hseed
                for hr in range(3):
                    if hr == 1:
                        hx ^= t & H32
                    elif hr == 2:
                        hx ^= pserial[p] & H32
                    hx ^= hx >> 16
                    hx = (hx * 0x352D + (((hx * 0x7FEB) & 0xFFFF) << 16)) & H32
                    hx ^= hx >> 15
                    hx = (hx * 0xA68B + (((hx * 0x846C) & 0xFFFF) << 16)) & H32
                    hx ^= hx >> 16
                pkey[p] = hx
                if priority == 2 and psrc[p] == gsrc and pseq[p] == gseq:
                    pkey[p] = GOLDEN_BASE + page[p] * M + psrc[p]
            # 1. ejection: port e, if its queue had room, takes the highest-priority flit for n among
            # slots e, e + E, ... (the first of equal keys, as max() does)
            for e in range(E):
                if room[e] == 0:
                    if inwin:
                        for y in range(e, S, E):
                            if lane[y] >= 0 and pdst[lane[y]] == n:
                                ej_miss += 1
                                ej_miss_full += 1
                    continue
                best = -1
                bk = -1
                c = 0
                for y in range(e, S, E):
                    p = lane[y]
                    if p >= 0 and pdst[p] == n:
                        c += 1
                        k = pkey[p]
                        if k > bk:
                            best = y
                            bk = k
                if inwin and c > 1:
                    ej_miss += c - 1
                if best >= 0:
                    p = lane[best]
                    lane[best] = -1
                    pnode[p] = n
                    pport[p] = e
                    eq[n, e, (eqh[n, e] + eqn[n, e]) % DEPTH] = p
                    eqn[n, e] += 1
            # 1b. side buffer: its oldest flit (the first of equal keys) into the lowest free slot; with
            # none free, if it beats every slot's flit, it swaps with the lowest-priority flit not for n
            if sbn[n] > 0:
                bi = 0
                bk = pkey[sb[n, 0]]
                for i in range(1, sbn[n]):
                    k = pkey[sb[n, i]]
                    if k > bk:
                        bi = i
                        bk = k
                f = sb[n, bi]
                fy = -1
                for y in range(S):
                    if lane[y] < 0:
                        fy = y
                        break
                g = -1
                if fy < 0:
                    older = True
                    ck = 0
                    for y in range(S):
                        k = pkey[lane[y]]
                        if k >= bk:
                            older = False
                        if older and pdst[lane[y]] != n and (fy < 0 or k < ck):
                            fy = y
                            ck = k
                    if not older:
                        fy = -1
                    if fy >= 0:
                        g = lane[fy]
                if fy >= 0:
                    lane[fy] = f
                    for i in range(bi, sbn[n] - 1):
                        sb[n, i] = sb[n, i + 1]
                    sbn[n] -= 1
                    if g >= 0:
                        sb[n, sbn[n]] = g
                        sbn[n] += 1
            # 2. injection: the head of the source queue into the lowest free slot
            if sqn[n] > 0 and inwin:
                inj_wait += 1
                inj_stall += 1
                for y in range(S):
                    if lane[y] < 0:
                        inj_stall -= 1
                        break
            if sqn[n] > 0:
                for y in range(S):
                    if lane[y] < 0:
                        p = sq[n, sqh[n]]
                        sqh[n] = (sqh[n] + 1) % qcap
                        sqn[n] -= 1
                        lane[y] = p
                        page[p] = 0
                        ptin[p] = t
                        nseq[n] = (nseq[n] + 1) % GOLDEN_IDS
                        break
            for y in range(S):
                lmask[y] = masks[n, pdst[lane[y]]] if lane[y] >= 0 else 0
                lneut[y] = 0
            if neutral is not None:
                for y in range(S):
                    lneut[y] = neutral[n, pdst[lane[y]]] if lane[y] >= 0 else 0
            # 3. allocation
            if ideal:
                # by priority (equal keys: the lower lane first, as a stable sort), the lowest free
                # productive output, else the lowest free neutral output, else the lowest free output
                for y in range(S):
                    out[y] = -1
                    placed[y] = 0
                for i in range(S):
                    best = -1
                    bk = -1
                    for q in range(S):
                        if lane[q] >= 0 and placed[q] == 0:
                            k = pkey[lane[q]]
                            if k > bk:
                                best = q
                                bk = k
                    if best < 0:
                        break
                    placed[best] = 1
                    g = -1
                    h = -1
                    f = -1
                    for y in range(S):
                        if out[y] < 0:
                            if f < 0:
                                f = y
                            if h < 0 and (lneut[best] >> y) & 1:
                                h = y
                            if (lmask[best] >> y) & 1:
                                g = y
                                break
                    out[g if g >= 0 else (h if h >= 0 else f)] = lane[best]
            else:
                # k stages of 2x2 blocks; stage s decides output bit b = k-1-s between lanes q0 and
                # q1 = q0 + 2^b: the outputs still reachable share q0's bits above b
                for s in range(nst):
                    b = nst - 1 - s
                    for q0 in range(S):
                        if (q0 >> b) & 1:
                            continue
                        q1 = q0 | (1 << b)
                        a = lane[q0]
                        c = lane[q1]
                        if a >= 0 and (c < 0 or pkey[a] >= pkey[c]):
                            w = q0
                            l = q1
                            wside = 0
                        else:
                            w = q1
                            l = q0
                            wside = 1
                        base = (q0 >> (b + 1)) << (b + 1)
                        lo_bits = ((1 << (1 << b)) - 1) << base
                        hi_bits = lo_bits << (1 << b)
                        # a flit with no productive output in the block's reach uses its neutral mask
                        wm = lmask[w] if lmask[w] & (lo_bits | hi_bits) else lneut[w]
                        lm = lmask[l] if lmask[l] & (lo_bits | hi_bits) else lneut[l]
                        wonly = -1
                        if lane[w] >= 0:
                            u0 = (wm & lo_bits) != 0
                            u1 = (wm & hi_bits) != 0
                            if u0 != u1:
                                wonly = 0 if u0 else 1
                        lonly = -1
                        if lane[l] >= 0:
                            u0 = (lm & lo_bits) != 0
                            u1 = (lm & hi_bits) != 0
                            if u0 != u1:
                                lonly = 0 if u0 else 1
                        if wonly >= 0:
                            wside = wonly
                        elif lonly >= 0:
                            wside = 1 - lonly
                        wp = lane[w]
                        wm = lmask[w]
                        wn = lneut[w]
                        lp = lane[l]
                        lm = lmask[l]
                        ln = lneut[l]
                        if wside == 0:
                            lane[q0] = wp
                            lmask[q0] = wm
                            lneut[q0] = wn
                            lane[q1] = lp
                            lmask[q1] = lm
                            lneut[q1] = ln
                        else:
                            lane[q0] = lp
                            lmask[q0] = lm
                            lneut[q0] = ln
                            lane[q1] = wp
                            lmask[q1] = wm
                            lneut[q1] = wn
                for y in range(S):
                    out[y] = lane[y]
            # 3b. side buffer: with room, the deflected flit not for n on the lowest output enters it;
            # buffered flits age a cycle
            if B > 0:
                if sbn[n] < B:
                    for y in range(S):
                        p = out[y]
                        if p >= 0 and pdst[p] != n and ((masks[n, pdst[p]] >> y) & 1) == 0:
                            sb[n, sbn[n]] = p
                            sbn[n] += 1
                            out[y] = -1
                            if inwin:
                                side_in += 1
                            break
                for i in range(sbn[n]):
                    page[sb[n, i]] = min(page[sb[n, i]] + 1, age_max)
            # 4. outputs: age grown by K (saturating), onto the link to planes[y, n], input y
            for y in range(S):
                p = out[y]
                if p < 0:
                    continue

                if ((masks[n, pdst[p]] >> y) & 1) == 0:
                    pdefl[p] += 1
                phops[p] += 1
                page[p] = min(page[p] + K, age_max)
                pipe[slot, planes[y, n], y] = p
                if inwin:
                    linkflits[n * S + y] += 1
        t += 1
        in_flight = pcap - ftop
        if kind == TRACE:
            if tp >= ntrace and in_flight == 0:
                break
        elif t >= warmup + window and measured_done == measured:
            break
    live_max = 0
    for k in range(K):
        for n in range(M):
            for y in range(S):
                p = pipe[k, n, y]
                if p >= 0 and phops[p] > live_max:
                    live_max = phops[p]
    for n in range(M):
        for i in range(sbn[n]):
            if phops[sb[n, i]] > live_max:
                live_max = phops[sb[n, i]]
    stats = np.array([t, created_window, measured, measured_done, lat_sum, hops_sum, acc_p, dropped, created,
                      delivered, pcap - ftop, dist_sum, defl_sum, hops_max, live_max, inj_wait, inj_stall, ej_miss,
                      ej_miss_full, side_in], np.int64)
    return stats, hist, linkflits, log[:nlog]
