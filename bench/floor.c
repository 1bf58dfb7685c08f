/* The C floor: the least a server can do for what garaged's request-to-relay path does, so
 * scripts/bench.sh can report garaged's latencies as ratios to it, measured side by side by the
 * same client on the same (shared, noisy) machine.
 *
 *   floor LOCAL_SOCKET ATT_SOCKET TRACE_FILE PULSE_MS
 *
 * Two SOCK_SEQPACKET listeners, like garaged's local socket and its --att-socket seam, served
 * from one poll loop. A local packet `12345O=1` or `12345O=0` (LF optional) is a press: append
 * `<CLOCK_MONOTONIC ns> 1\n` to the trace (write(2) to an O_APPEND fd, as garaged's simulated
 * relay does), sleep the pulse (absolute CLOCK_MONOTONIC deadline), append `<ns> 0\n`, reply
 * `OK\n`. An ATT packet that is a Write Request (0x12) of the same to handle 0x000C is the same
 * press, answered with a Write Response (0x13). `12345S` is answered `S OPEN` or `S CLOSED` (the
 * last press's direction), so the benchmark's client can treat both servers alike; anything
 * else is answered `ERR` (local) or an ATT Error Response, at once. Nothing is logged or judged
 * beyond that. Stops on SIGTERM or SIGINT.
 *
 * Build: cc -O2 -o floor bench/floor.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 64

static volatile sig_atomic_t stopping;
static void on_signal(int sig) { (void)sig; stopping = 1; }

static int trace_fd;
static long long pulse_ns;
static int door_open;

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void record(long long ns, int level) {
    char line[48];
    int n = snprintf(line, sizeof line, "%lld %d\n", ns, level);
    if (write(trace_fd, line, (size_t)n) != n) { perror("floor: trace write"); exit(1); }
}

/* One press: relay on, the pulse to an absolute deadline, relay off. */
static void press(int open) {
    long long start = now_ns();
    record(start, 1);
    long long end = start + pulse_ns;
    struct timespec deadline = { (time_t)(end / 1000000000LL), (long)(end % 1000000000LL) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR && !stopping) {}
    record(now_ns(), 0);
    door_open = open;
}

static int listen_on(const char *path) {
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) { perror("floor: socket"); exit(1); }
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) { fprintf(stderr, "floor: path too long: %s\n", path); exit(1); }
    strcpy(a.sun_path, path);
    unlink(path);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 64) < 0) {
        fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return fd;
}

/* A local request: one line per packet (a trailing LF or CR LF dropped). */
static void serve_local(int fd, char *buf, ssize_t n) {
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) n--;
    const char *reply = "ERR\n";
    if (n == 8 && memcmp(buf, "12345O=", 7) == 0 && (buf[7] == '1' || buf[7] == '0')) {
        press(buf[7] == '1');
        reply = "OK\n";
    } else if (n == 6 && memcmp(buf, "12345S", 6) == 0) {
        reply = door_open ? "S OPEN\n" : "S CLOSED\n";
    }
    send(fd, reply, strlen(reply), MSG_NOSIGNAL);
}

/* An ATT PDU: a Write Request (0x12) to 0x000C of 12345O=1 / 12345O=0 presses. */
static void serve_att(int fd, const unsigned char *pdu, ssize_t n) {
    if (n == 11 && pdu[0] == 0x12 && pdu[1] == 0x0C && pdu[2] == 0x00 && memcmp(pdu + 3, "12345O=", 7) == 0
        && (pdu[10] == '1' || pdu[10] == '0')) {
        press(pdu[10] == '1');
        unsigned char rsp = 0x13;
        send(fd, &rsp, 1, MSG_NOSIGNAL);
        return;
    }
    unsigned char err[5] = { 0x01, n > 0 ? pdu[0] : 0, n > 2 ? pdu[1] : 0, n > 2 ? pdu[2] : 0, 0x06 };
    send(fd, err, sizeof err, MSG_NOSIGNAL);
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: floor LOCAL_SOCKET ATT_SOCKET TRACE_FILE PULSE_MS\n"); return 2; }
    pulse_ns = atoll(argv[4]) * 1000000LL;
    trace_fd = open(argv[3], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (trace_fd < 0) { perror("floor: trace"); return 1; }
    record(now_ns(), 0);

    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    struct pollfd fds[2 + MAX_CLIENTS];
    int is_att[2 + MAX_CLIENTS];
    fds[0] = (struct pollfd){ .fd = listen_on(argv[1]), .events = POLLIN };
    fds[1] = (struct pollfd){ .fd = listen_on(argv[2]), .events = POLLIN };
    is_att[0] = 0;
    is_att[1] = 1;
    int nfds = 2;
    unsigned char buf[4096];

    while (!stopping) {
        if (poll(fds, (nfds_t)nfds, -1) < 0) {
            if (errno == EINTR) continue;
            perror("floor: poll");
            return 1;
        }
        for (int i = 0; i < 2; i++) {
            if (!(fds[i].revents & POLLIN)) continue;
            int c = accept4(fds[i].fd, NULL, NULL, SOCK_CLOEXEC);
            if (c < 0) continue;
            if (nfds == 2 + MAX_CLIENTS) { close(c); continue; }
            fds[nfds] = (struct pollfd){ .fd = c, .events = POLLIN };
            is_att[nfds++] = is_att[i];
        }
        for (int i = 2; i < nfds; i++) {
            if (!fds[i].revents) continue;
            ssize_t n = recv(fds[i].fd, buf, sizeof buf, MSG_DONTWAIT);
            if (n > 0) {
                if (is_att[i]) serve_att(fds[i].fd, buf, n); else serve_local(fds[i].fd, (char *)buf, n);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close(fds[i].fd);
                fds[i] = fds[nfds - 1];
                is_att[i] = is_att[nfds - 1];
                nfds--;
                i--;
            }
        }
    }
    unlink(argv[1]);
    unlink(argv[2]);
    return 0;
}
