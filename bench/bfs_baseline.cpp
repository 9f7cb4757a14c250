// Baseline for `make bench`: all-pairs diameter and average distance by
// bit-parallel BFS (64 sources per 64-bit word), batches split over OpenMP
// threads.  The same algorithm as permnet.gen.metrics, compiled with g++.
//
// Input (stdin): n m, then m lines "u v" (arcs).  Output: "seconds diameter avg",
// seconds being the best of 3 runs.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    long n, m;
    if (std::scanf("%ld %ld", &n, &m) != 2) return 1;
    std::vector<long> tail(m), head(m), indptr(n + 1, 0), indices(m);
    for (long e = 0; e < m; ++e) {
        std::scanf("%ld %ld", &tail[e], &head[e]);
        ++indptr[tail[e] + 1];
    }
    for (long v = 0; v < n; ++v) indptr[v + 1] += indptr[v];
    std::vector<long> fill(indptr.begin(), indptr.end() - 1);
    for (long e = 0; e < m; ++e) indices[fill[tail[e]]++] = head[e];

    double best = 1e30;
    long diam = 0;
    double avg = 0;
    for (int rep = 0; rep < 3; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        long nb = (n + 63) / 64, total = 0, dmax = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : total) reduction(max : dmax)
        for (long b = 0; b < nb; ++b) {
            std::vector<uint64_t> seen(n, 0), front(n, 0), next(n, 0);
            long s0 = b * 64, ns = (n - s0 < 64) ? n - s0 : 64;
            for (long j = 0; j < ns; ++j) seen[s0 + j] = front[s0 + j] = 1ull << j;
            for (long level = 1;; ++level) {
                std::fill(next.begin(), next.end(), 0);
                for (long u = 0; u < n; ++u) {
                    uint64_t f = front[u];
                    if (!f) continue;
                    for (long e = indptr[u]; e < indptr[u + 1]; ++e) next[indices[e]] |= f;
                }
                long count = 0;
                for (long v = 0; v < n; ++v) {
                    uint64_t w = next[v] & ~seen[v];
                    front[v] = w;
                    seen[v] |= w;
                    count += __builtin_popcountll(w);
                }
                if (!count) break;
                total += count * level;
                if (level > dmax) dmax = level;
            }
        }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < best) best = s;
        diam = dmax;
        avg = double(total) / (double(n) * double(n - 1));
    }
    std::printf("%.6f %ld %.12f\n", best, diam, avg);
    return 0;
}
