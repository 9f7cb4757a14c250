// (Verilator escapes the "__" of Amaranth stream port names as "___05F".)
// permnet HIL simulation: the Verilated HIL top level with its byte stream
// bridged to one TCP client on 127.0.0.1 (no UART bit timing), with optional
// fault injection on the host-to-device bytes.
//
//   Vhil_top --port P [--fault corrupt:N] [--fault drop:N] [--fault stall:N:MS]
//            [--max-seconds S] [--once] [--bench-cycles C]
//
// Prints "listening 127.0.0.1 PORT" on stdout once the socket is bound
// (port 0 picks a free one).  Byte N counts the host's bytes from 0 over the
// whole run.  corrupt flips bit 0 of byte N, drop discards it, stall
// discards every byte in both directions for MS milliseconds from byte N.
// While nothing is pending the clock still runs, paced by the wall clock at
// IDLE_HZ cycles per second, so the bridge's idle time-out (built as
// IDLE_HZ / 10 cycles by verilator.py) is 100 ms of real silence, as in
// LiteX's UARTBone.  Every receive re-arms TCP_QUICKACK: a client without
// TCP_NODELAY (pyserial's socket://, hence LiteX's litex_server) writes a
// frame in pieces, and Nagle's algorithm holds each piece until the previous
// one is acknowledged; a delayed ACK (40 ms or more) would stall it.
#include "Vhil_top.h"
#include "verilated.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fcntl.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

static const int POLL_MS = 2;
#ifndef PERMNET_IDLE_HZ
#error "build with -DPERMNET_IDLE_HZ=<cycles per second> (permnet.hdl.hil.verilator does)"
#endif
static const double IDLE_HZ = PERMNET_IDLE_HZ;  // the bridge's time-out is IDLE_HZ / 10 cycles
static const long long IDLE_MAX_STEP = 8192;    // cycles per catch-up (after a long sleep)
static const long long IDLE_CHECK = 256;        // a catch-up looks for host bytes this often
static const int QUIET_TICKS = 96;    // cycles without traffic before waiting on the socket again
                                      // (> the 64 cycles a 32-word framed write takes to execute)

struct Fault { char kind; unsigned long long at; long ms; };

static double now_s() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
    int port = 0;
    double max_seconds = 3600.0;
    bool once = false;
    unsigned long long bench_cycles = 0;
    std::vector<Fault> faults;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--port" && i + 1 < argc) port = atoi(argv[++i]);
        else if (a == "--max-seconds" && i + 1 < argc) max_seconds = atof(argv[++i]);
        else if (a == "--once") once = true;
        else if (a == "--bench-cycles" && i + 1 < argc) bench_cycles = strtoull(argv[++i], nullptr, 10);
        else if (a == "--fault" && i + 1 < argc) {
            std::string f = argv[++i];
            Fault x{0, 0, 0};
            char kind[16] = {0};
            unsigned long long at = 0; long ms = 0;
            int n = sscanf(f.c_str(), "%15[a-z]:%llu:%ld", kind, &at, &ms);
            std::string k = kind;
            if (n >= 2 && (k == "corrupt" || k == "drop" || (k == "stall" && n == 3))) {
                x.kind = k[0]; x.at = at; x.ms = ms; faults.push_back(x);
            } else { fprintf(stderr, "bad fault %s\n", f.c_str()); return 2; }
        } else if (a.rfind("+", 0) == 0) {
        } else { fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
    }

    Vhil_top* top = new Vhil_top;
    unsigned long long cycles = 0;
    auto tick = [&]() {
        top->clk = 0; top->eval();
        top->clk = 1; top->eval();
        cycles++;
    };
    top->rst = 1; top->rx___05Fvalid = 0; top->tx___05Fready = 1;
    for (int i = 0; i < 4; i++) tick();
    top->rst = 0;
    double paced = now_s();
    // advance the clock to the wall clock at IDLE_HZ; a model slower than IDLE_HZ catches up
    // in steps, and a step stops early when the host (fd) has sent bytes, so that it is
    // answered at once rather than after the step
    auto idle = [&](int fd) {
        double t = now_s();
        long long n = (long long)((t - paced) * IDLE_HZ);
        if (n <= 0) return;
        if (n > IDLE_MAX_STEP) { n = IDLE_MAX_STEP; paced = t; }
        else paced += n / IDLE_HZ;
        for (long long i = 0; i < n; i++) {
            tick();
            if (i % IDLE_CHECK == IDLE_CHECK - 1) {
                pollfd p{fd, POLLIN, 0};
                if (poll(&p, 1, 0) > 0) { paced = now_s(); return; }
            }
        }
    };

    if (bench_cycles) {
        double t0 = now_s();
        for (unsigned long long i = 0; i < bench_cycles; i++) tick();
        double dt = now_s() - t0;
        printf("cycles %llu seconds %.6f cycles_per_second %.1f\n", bench_cycles, dt, bench_cycles / dt);
        delete top;
        return 0;
    }

    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sa{};
    sa.sin_family = AF_INET; sa.sin_port = htons(port); sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(ls, (sockaddr*)&sa, sizeof sa) != 0 || listen(ls, 1) != 0) {
        printf("error 127.0.0.1:%d: %s\n", port, strerror(errno));   // the first line, read by SimServer
        return 3;
    }
    socklen_t sl = sizeof sa;
    getsockname(ls, (sockaddr*)&sa, &sl);
    printf("listening 127.0.0.1 %d\n", ntohs(sa.sin_port));
    fflush(stdout);

    double deadline = now_s() + max_seconds;
    unsigned long long host_bytes = 0, dev_bytes = 0;
    double stall_until = 0;
    int clients = 0;
    while (now_s() < deadline) {
        pollfd lp{ls, POLLIN, 0};
        if (poll(&lp, 1, 100) <= 0) { idle(ls); continue; }
        int fd = accept(ls, nullptr, nullptr);
        if (fd < 0) continue;
        clients++;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        std::deque<unsigned char> in;
        std::vector<unsigned char> out;
        bool open = true;
        unsigned char buf[4096];
        while (open && now_s() < deadline) {
            bool busy = !in.empty() || top->tx___05Fvalid;
            pollfd p{fd, POLLIN, 0};
            int r = poll(&p, 1, busy ? 0 : POLL_MS);
            if (r > 0) {
                ssize_t n = recv(fd, buf, sizeof buf, 0);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) { open = false; break; }
                for (ssize_t i = 0; i < n; i++) {
                    unsigned long long idx = host_bytes++;
                    unsigned char b = buf[i];
                    bool keep = true;
                    for (auto& f : faults) {
                        if (f.at != idx) continue;
                        if (f.kind == 'c') b ^= 0x01;
                        else if (f.kind == 'd') keep = false;
                        else if (f.kind == 's') stall_until = now_s() + f.ms / 1000.0;
                    }
                    if (now_s() < stall_until) keep = false;
                    if (keep) in.push_back(b);
                }
#ifdef TCP_QUICKACK
                setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
#endif
            }
            if (!busy && in.empty()) { idle(fd); continue; }
            // run while there is work: feed bytes, collect the answer
            int quiet = 0;
            for (int k = 0; k < 65536 && quiet < QUIET_TICKS; k++) {
                top->rx___05Fvalid = !in.empty();
                if (!in.empty()) top->rx___05Fpayload = in.front();
                top->tx___05Fready = 1;
                top->clk = 0; top->eval();
                bool took = top->rx___05Fvalid && top->rx___05Fready;
                bool gave = top->tx___05Fvalid;
                unsigned char byte = top->tx___05Fpayload;
                top->clk = 1; top->eval();
                cycles++;
                if (took) in.pop_front();
                if (gave) { dev_bytes++; if (now_s() >= stall_until) out.push_back(byte); }
                quiet = (took || gave || !in.empty()) ? 0 : quiet + 1;
            }
            top->rx___05Fvalid = 0;
            paced = now_s();
            size_t sent = 0;
            double t_send = now_s() + 5.0;
            while (sent < out.size() && now_s() < t_send) {
                ssize_t n = send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
                if (n > 0) sent += n;
                else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { open = false; break; }
                else { pollfd w{fd, POLLOUT, 0}; poll(&w, 1, 10); }
            }
            out.clear();
        }
        close(fd);
        fprintf(stderr, "client %d closed: %llu bytes in, %llu bytes out, %llu cycles\n",
                clients, host_bytes, dev_bytes, cycles);
        if (once) break;
    }
    close(ls);
    top->final();
    delete top;
    return 0;
}
