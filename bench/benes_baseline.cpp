// Baseline for `make bench`: a plain recursive looping-algorithm Benes router
// for N = 2^k in C++ (the shape of the compiled routers in wide use).
// Usage: benes_baseline K SEED  -> prints the routing time in seconds.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <algorithm>
#include <numeric>

static std::vector<uint8_t> state;  // stage-major, N/2 switches per stage
static int K, N;

static void route(int off, int n, int s0, std::vector<int> &perm, int pofs,
                  std::vector<int> &inv, std::vector<int8_t> &col, std::vector<int> &tmp) {
    int depth = 2 * __builtin_ctz(n) - 1;
    if (n == 2) { state[(size_t)s0 * (N / 2) + off / 2] = perm[pofs] == 1; return; }
    int h = n / 2, s1 = s0 + depth - 1;
    for (int i = 0; i < n; i++) { inv[pofs + perm[pofs + i]] = i; col[pofs + i] = -1; }
    for (int st = 0; st < n; st++) {
        if (col[pofs + st] != -1) continue;
        int i = st, c = 0;
        while (true) {
            col[pofs + i] = c;
            int j = inv[pofs + (perm[pofs + i] ^ 1)];
            if (col[pofs + j] != -1) break;
            col[pofs + j] = 1 - c;
            int p = j ^ 1;
            if (col[pofs + p] != -1) break;
            i = p;
        }
    }
    for (int j = 0; j < h; j++) {
        state[(size_t)s0 * (N / 2) + (off + 2 * j) / 2] = col[pofs + 2 * j];
        state[(size_t)s1 * (N / 2) + (off + 2 * j) / 2] = col[pofs + inv[pofs + 2 * j]];
    }
    for (int i = 0; i < n; i++) {
        int o = perm[pofs + i];
        tmp[pofs + (col[pofs + i] ? h : 0) + i / 2] = o / 2;
    }
    std::copy(tmp.begin() + pofs, tmp.begin() + pofs + n, perm.begin() + pofs);
    route(off, h, s0 + 1, perm, pofs, inv, col, tmp);
    route(off + h, h, s0 + 1, perm, pofs + h, inv, col, tmp);
}

int main(int argc, char **argv) {
    K = atoi(argv[1]);
    N = 1 << K;
    std::vector<int> perm(N), inv(N), tmp(N);
    std::vector<int8_t> col(N);
    std::iota(perm.begin(), perm.end(), 0);
    std::mt19937_64 rng(atoi(argv[2]));
    std::shuffle(perm.begin(), perm.end(), rng);
    auto t0 = std::chrono::steady_clock::now();
    state.assign((size_t)(2 * K - 1) * (N / 2), 0);
    route(0, N, 0, perm, 0, inv, col, tmp);
    auto t1 = std::chrono::steady_clock::now();
    printf("%.6f\n", std::chrono::duration<double>(t1 - t0).count());
    return 0;
}
