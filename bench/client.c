/* The measuring client of scripts/bench.sh, in C so that nothing between its clock stamp and
 * the send(2) (an interpreter, a garbage collector) lands in the figures: the same client
 * measures garaged and the C floor (bench/floor.c) side by side.
 *
 *   client latency OUT ROUNDS BLOCK [--flood] [--local] [--att] NAME=LOCAL,ATT,TRACE ...
 *       Request-to-relay latency. Each round: wait 2 ms (the server idles), stamp
 *       CLOCK_MONOTONIC, send `12345O=1` (or `12345O=0`, alternately) as one packet on the
 *       local socket (--local) or as an ATT Write Request (0x12) to handle 0x000C on the ATT
 *       socket (--att), sleep 10 ms (so the client takes no core while the server works), read
 *       the reply (OK / Write Response 0x13), then read the server's relay
 *       trace until the press's rising and falling lines; then ask `12345S` on the local socket
 *       until the door is OPEN or CLOSED (garaged's door moves for one pulse after a press). One
 *       line per press goes to OUT: `NAME.local|NAME.att LATENCY_NS WIDTH_NS` (latency = the
 *       trace's rising stamp minus the client's stamp; width = falling minus rising).
 *       The series (each target, each transport) take turns in blocks of BLOCK rounds, the
 *       order reversed every other block, so the machine's noise falls on all of them alike.
 *       --flood: while a target is measured, another client of it sends wrong PINs, garbage,
 *       unknown commands and overlong lines on its local socket as fast as it is answered
 *       (paused, SIGSTOP, while the other targets are measured); OUT gets
 *       `# flood NAME REQUESTS SECONDS` lines.
 *   client doors OUT ROUNDS NAME=LOCAL,TRACE1,TRACE2
 *       Request-to-relay on the second door of a garaged with two doors (travel 0), alone and
 *       while the first door is pressing, in alternate rounds. A busy round first sends
 *       `12345O=1`/`O=0` for the first door on its own connection and waits for that press's
 *       rising line in TRACE1; then, as in `latency`, waits 2 ms, stamps CLOCK_MONOTONIC and
 *       sends `12345@2:O=1`/`O=0`, and reads TRACE2 for the second door's press. One line per
 *       press to OUT: `NAME.idle|NAME.busy LATENCY_NS WIDTH_NS`.
 *   client status OUT N BLOCK NAME=SOCKET ...
 *       N round trips of `12345S` on each socket, the sockets taking turns in blocks of BLOCK
 *       (the order reversed every other block); one line per round trip to OUT: `NAME NS`.
 *   client startup SOCKET N -- PROGRAM ARG...
 *       Starts PROGRAM N times; for each start prints `CONNECT_NS REPLY_NS`: from just before
 *       fork+exec to the socket accepting a connection, and to the first `12345S` answered.
 *       Each instance is stopped with SIGTERM and reaped before the next.
 *
 * Build: cc -O2 -o client bench/client.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_NS 5000000000LL

/* Flooders this client forked: killed if it dies, so none is left stopped behind. */
static pid_t flooders[4];
static int nflooders;

static void die(const char *fmt, ...) {
    for (int i = 0; i < nflooders; i++) {
        kill(flooders[i], SIGKILL);
        kill(flooders[i], SIGCONT);
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "client: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(long long ns) {
    struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* A blocking SOCK_SEQPACKET connection, or -1 with errno set. */
static int try_connect(const char *path) {
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket: %s", strerror(errno));
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) die("socket path too long: %s", path);
    strcpy(a.sun_path, path);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static int connect_to(const char *path) {
    int fd = try_connect(path);
    if (fd < 0) die("connect %s: %s", path, strerror(errno));
    return fd;
}

/* One packet, waiting at most until the deadline; returns its length. */
static ssize_t recv_packet(int fd, void *buf, size_t size, long long deadline, const char *what) {
    for (;;) {
        long long left = deadline - now_ns();
        if (left <= 0) die("no answer within 5 s (%s)", what);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, (int)(left / 1000000 + 1));
        if (r < 0 && errno != EINTR) die("poll: %s", strerror(errno));
        if (r <= 0) continue;
        ssize_t n = recv(fd, buf, size, MSG_DONTWAIT);
        if (n > 0) return n;
        if (n == 0) die("the server closed the connection (%s)", what);
        if (errno != EAGAIN && errno != EINTR) die("recv (%s): %s", what, strerror(errno));
    }
}

static void send_packet(int fd, const void *buf, size_t n, const char *what) {
    if (send(fd, buf, n, MSG_NOSIGNAL) != (ssize_t)n) die("send (%s): %s", what, strerror(errno));
}

/* Drops whatever is waiting on a connection (nothing should be). */
static void drain(int fd) {
    char buf[4096];
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {}
}

/* ---- the relay trace: `<ns> <0|1>` lines appended by the server ---- */

struct trace {
    int fd, watch;
    char buf[8192];
    size_t len;
};

static void trace_open(struct trace *t, const char *path) {
    t->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->fd < 0) die("open %s: %s", path, strerror(errno));
    t->watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (t->watch < 0 || inotify_add_watch(t->watch, path, IN_MODIFY) < 0) die("inotify %s: %s", path, strerror(errno));
    t->len = 0;
}

/* The next whole line, waiting (inotify) until the deadline; 0 if none came in time. */
static int trace_next(struct trace *t, long long *ns, int *level, long long deadline) {
    for (;;) {
        char *nl = memchr(t->buf, '\n', t->len);
        if (nl) {
            *nl = 0;
            if (sscanf(t->buf, "%lld %d", ns, level) != 2) die("bad trace line '%s'", t->buf);
            size_t used = (size_t)(nl - t->buf) + 1;
            memmove(t->buf, t->buf + used, t->len - used);
            t->len -= used;
            return 1;
        }
        ssize_t n = read(t->fd, t->buf + t->len, sizeof t->buf - t->len - 1);
        if (n > 0) { t->len += (size_t)n; continue; }
        long long left = deadline - now_ns();
        if (left <= 0) return 0;
        struct pollfd p = { .fd = t->watch, .events = POLLIN };
        if (poll(&p, 1, (int)(left / 1000000 + 1)) > 0) {
            char ev[4096];
            while (read(t->watch, ev, sizeof ev) > 0) {}
        }
    }
}

/* Skips every line already in the trace. */
static void trace_skip(struct trace *t) {
    long long ns;
    int level;
    while (trace_next(t, &ns, &level, 0)) {}
}

/* ---- latency ---- */

struct target {
    char name[64];
    char local[256], att[256], trace_path[256];
    int local_fd, att_fd, door_open;
    struct trace trace;
    pid_t flooder;
    double flood_seconds;
    unsigned long long *flood_count; /* shared with the flooder */
};

/* What the flooder sends, one line per packet, round and round: with the owner's uid (root)
 * none of it locks the local channel (docs/protocol.md, Throttling). */
static const char *flood_lines[] = {
    "99999O=1\n",                    /* a wrong PIN */
    "garbage!\n",                    /* malformed */
    "12345Z\n",                      /* an unknown command letter */
    "54321S\n",                      /* another wrong PIN */
    "12345xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", /* over 64 bytes */
    "\x01\x02\x03\xff\xfe\n",        /* binary */
};

static void flood(const char *path, unsigned long long *count) {
    int fd = connect_to(path);
    raise(SIGSTOP); /* connected; the parent resumes us while our target is measured */
    char buf[4096];
    for (unsigned i = 0;; i++) {
        const char *line = flood_lines[i % (sizeof flood_lines / sizeof *flood_lines)];
        if (send(fd, line, strlen(line), MSG_NOSIGNAL) < 0) _exit(1);
        if (recv(fd, buf, sizeof buf, 0) <= 0) _exit(1);
        __atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
    }
}

static void wait_stopped(pid_t pid) {
    int st;
    if (waitpid(pid, &st, WUNTRACED) < 0 || !WIFSTOPPED(st)) die("the flooder did not stop");
}

/* Asks `12345S` until the door rests (OPEN or CLOSED); returns 1 for OPEN. */
static int settle(struct target *t) {
    long long deadline = now_ns() + TIMEOUT_NS;
    char buf[256];
    for (;;) {
        send_packet(t->local_fd, "12345S\n", 7, "status");
        ssize_t n = recv_packet(t->local_fd, buf, sizeof buf - 1, deadline, "status");
        buf[n] = 0;
        if (strcmp(buf, "S OPEN\n") == 0) return 1;
        if (strcmp(buf, "S CLOSED\n") == 0) return 0;
        if (strncmp(buf, "S ", 2) != 0) die("%s: status answered '%s'", t->name, buf);
        if (now_ns() > deadline) die("%s: the door did not come to rest: '%s'", t->name, buf);
        sleep_ns(500000);
    }
}

/* One press through `att` (or the local socket); returns the latency, sets the width. */
static long long one_round(struct target *t, int att, long long *width) {
    char req[32], buf[4096];
    int open = !t->door_open;
    sleep_ns(2000000);
    trace_skip(&t->trace);
    int fd = att ? t->att_fd : t->local_fd;
    drain(fd);
    size_t n;
    if (att) {
        req[0] = 0x12; req[1] = 0x0C; req[2] = 0x00;
        memcpy(req + 3, open ? "12345O=1" : "12345O=0", 8);
        n = 11;
    } else {
        memcpy(req, open ? "12345O=1\n" : "12345O=0\n", 9);
        n = 9;
    }
    long long t0 = now_ns();
    send_packet(fd, req, n, "press");
    /* Hands off while the server works: the client neither wakes on an early reply nor
     * competes for a core in the window that is measured (the press starts within it). */
    sleep_ns(10000000);
    long long deadline = now_ns() + TIMEOUT_NS;
    ssize_t r = recv_packet(fd, buf, sizeof buf - 1, deadline, "press reply");
    buf[r] = 0;
    if (att ? !(r == 1 && (unsigned char)buf[0] == 0x13) : strcmp(buf, "OK\n") != 0) {
        if (att) die("%s.att: expected a Write Response (13), got %zd bytes starting %02x", t->name, r, (unsigned char)buf[0]);
        die("%s.local: %s answered '%s'", t->name, open ? "O=1" : "O=0", buf);
    }
    long long rise = 0, fall = 0, ns;
    int level;
    while (!fall) {
        if (!trace_next(&t->trace, &ns, &level, deadline)) die("%s: no press in the trace within 5 s", t->name);
        if (level == 1 && !rise) rise = ns;
        else if (level == 0 && rise) fall = ns;
    }
    if (rise < t0) die("%s: the trace's press (%lld) is older than the request (%lld)", t->name, rise, t0);
    t->door_open = settle(t);
    if (t->door_open != open) die("%s: the door is %s after the press", t->name, t->door_open ? "OPEN" : "CLOSED");
    *width = fall - rise;
    return rise - t0;
}

static int cmd_latency(int argc, char **argv) {
    if (argc < 5) die("usage: client latency OUT ROUNDS BLOCK [--flood] [--local] [--att] NAME=LOCAL,ATT,TRACE ...");
    FILE *out = fopen(argv[2], "a");
    if (!out) die("open %s: %s", argv[2], strerror(errno));
    int rounds = atoi(argv[3]), block = atoi(argv[4]);
    int flooding = 0, local = 0, att = 0, ntargets = 0;
    struct target targets[4];
    for (int i = 5; i < argc; i++) {
        if (strcmp(argv[i], "--flood") == 0) { flooding = 1; continue; }
        if (strcmp(argv[i], "--local") == 0) { local = 1; continue; }
        if (strcmp(argv[i], "--att") == 0) { att = 1; continue; }
        if (ntargets == 4) die("at most 4 targets");
        struct target *t = &targets[ntargets++];
        memset(t, 0, sizeof *t);
        if (sscanf(argv[i], "%63[^=]=%255[^,],%255[^,],%255s", t->name, t->local, t->att, t->trace_path) != 4)
            die("bad target '%s' (NAME=LOCAL,ATT,TRACE; ATT may be -)", argv[i]);
    }
    if (!local && !att) local = att = 1;
    struct { struct target *t; int att; char name[80]; } series[8];
    int nseries = 0;
    for (int i = 0; i < ntargets; i++) {
        struct target *t = &targets[i];
        t->local_fd = connect_to(t->local);
        t->att_fd = -1;
        if (att) {
            if (strcmp(t->att, "-") == 0) die("%s has no ATT socket", t->name);
            t->att_fd = connect_to(t->att);
        }
        trace_open(&t->trace, t->trace_path);
        t->door_open = settle(t);
        t->flooder = 0;
        if (flooding) {
            t->flood_count = mmap(NULL, sizeof *t->flood_count, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (t->flood_count == MAP_FAILED) die("mmap: %s", strerror(errno));
            *t->flood_count = 0;
            pid_t pid = fork();
            if (pid < 0) die("fork: %s", strerror(errno));
            if (pid == 0) flood(t->local, t->flood_count);
            flooders[nflooders++] = pid;
            wait_stopped(pid);
            t->flooder = pid;
        }
        for (int a = 0; a < 2; a++) {
            if (a ? !att : !local) continue;
            series[nseries].t = t;
            series[nseries].att = a;
            snprintf(series[nseries].name, sizeof series[nseries].name, "%.63s.%s", t->name, a ? "att" : "local");
            nseries++;
        }
    }
    for (int done = 0, b = 0; done < rounds; done += block, b++) {
        int count = rounds - done < block ? rounds - done : block;
        for (int k = 0; k < nseries; k++) {
            int s = b % 2 ? nseries - 1 - k : k;
            struct target *t = series[s].t;
            long long started = 0;
            if (t->flooder) {
                kill(t->flooder, SIGCONT);
                started = now_ns();
                sleep_ns(5000000); /* the flood under way before the first request */
            }
            for (int i = 0; i < count; i++) {
                long long width, lat = one_round(t, series[s].att, &width);
                fprintf(out, "%s %lld %lld\n", series[s].name, lat, width);
            }
            if (t->flooder) {
                kill(t->flooder, SIGSTOP);
                wait_stopped(t->flooder);
                t->flood_seconds += (now_ns() - started) / 1e9;
            }
        }
        fflush(out);
    }
    for (int i = 0; i < ntargets; i++) {
        struct target *t = &targets[i];
        if (!t->flooder) continue;
        fprintf(out, "# flood %s %llu %.3f\n", t->name, *t->flood_count, t->flood_seconds);
        kill(t->flooder, SIGKILL);
        kill(t->flooder, SIGCONT);
        waitpid(t->flooder, NULL, 0);
    }
    fclose(out);
    return 0;
}

/* ---- the second door, while the first presses ---- */

/* Sends one request and expects `OK`. */
static void ask_ok(int fd, const char *req, const char *what) {
    char buf[256];
    drain(fd);
    send_packet(fd, req, strlen(req), what);
    ssize_t n = recv_packet(fd, buf, sizeof buf - 1, now_ns() + TIMEOUT_NS, what);
    buf[n] = 0;
    if (strcmp(buf, "OK\n") != 0) die("%s answered '%s'", what, buf);
}

/* Reads a trace until a press's rising (and, with `fall`, falling) line. */
static void read_press(struct trace *tr, long long *rise, long long *fall, const char *what) {
    long long deadline = now_ns() + TIMEOUT_NS, ns;
    int level;
    *rise = 0;
    if (fall) *fall = 0;
    while (!*rise || (fall && !*fall)) {
        if (!trace_next(tr, &ns, &level, deadline)) die("%s: no press in the trace within 5 s", what);
        if (level == 1 && !*rise) *rise = ns;
        else if (level == 0 && *rise && fall) *fall = ns;
    }
}

/* Asks `status` until the door rests OPEN (`open`) or CLOSED. */
static void rest(int fd, const char *status, int open) {
    long long deadline = now_ns() + TIMEOUT_NS;
    char buf[256];
    const char *want = open ? "S OPEN\n" : "S CLOSED\n";
    for (;;) {
        send_packet(fd, status, strlen(status), "status");
        ssize_t n = recv_packet(fd, buf, sizeof buf - 1, deadline, "status");
        buf[n] = 0;
        if (strcmp(buf, want) == 0) return;
        if (now_ns() > deadline) die("the door did not come to rest: '%s'", buf);
        sleep_ns(500000);
    }
}

static int cmd_doors(int argc, char **argv) {
    if (argc != 5) die("usage: client doors OUT ROUNDS NAME=LOCAL,TRACE1,TRACE2");
    FILE *out = fopen(argv[2], "a");
    if (!out) die("open %s: %s", argv[2], strerror(errno));
    int rounds = atoi(argv[3]);
    char name[64], local[256], path1[256], path2[256];
    if (sscanf(argv[4], "%63[^=]=%255[^,],%255[^,],%255s", name, local, path1, path2) != 4)
        die("bad target '%s' (NAME=LOCAL,TRACE1,TRACE2)", argv[4]);
    int fd1 = connect_to(local), fd2 = connect_to(local);
    struct trace first, second;
    trace_open(&first, path1);
    trace_open(&second, path2);
    int open1 = 0, open2 = 0;
    for (int i = 0; i < rounds; i++) {
        int busy = i % 2;
        trace_skip(&first);
        trace_skip(&second);
        long long rise1 = 0, fall1 = 0, rise2, fall2;
        if (busy) {
            open1 = !open1;
            ask_ok(fd1, open1 ? "12345O=1\n" : "12345O=0\n", "the first door");
            read_press(&first, &rise1, NULL, "the first door");
        }
        sleep_ns(2000000);
        open2 = !open2;
        const char *req = open2 ? "12345@2:O=1\n" : "12345@2:O=0\n";
        long long t0 = now_ns();
        send_packet(fd2, req, strlen(req), "the second door");
        sleep_ns(10000000);
        char buf[256];
        ssize_t n = recv_packet(fd2, buf, sizeof buf - 1, now_ns() + TIMEOUT_NS, "the second door");
        buf[n] = 0;
        if (strcmp(buf, "OK\n") != 0) die("%s: the second door answered '%s'", name, buf);
        read_press(&second, &rise2, &fall2, "the second door");
        if (busy) {
            long long ns;
            int level;
            while (!fall1) {
                if (!trace_next(&first, &ns, &level, now_ns() + TIMEOUT_NS)) die("the first door's press did not end");
                if (level == 0) fall1 = ns;
            }
            if (rise2 > fall1) die("%s: the first door was not pressing when the second pressed", name);
        }
        fprintf(out, "%s.%s %lld %lld\n", name, busy ? "busy" : "idle", rise2 - t0, fall2 - rise2);
        /* Travel 0: each door rests once its release is taken; the next round waits for that. */
        rest(fd2, "12345@2:S\n", open2);
        if (busy) rest(fd1, "12345S\n", open1);
    }
    fclose(out);
    return 0;
}

/* ---- status round trips ---- */

static int cmd_status(int argc, char **argv) {
    if (argc < 6) die("usage: client status OUT N BLOCK NAME=SOCKET ...");
    FILE *out = fopen(argv[2], "a");
    if (!out) die("open %s: %s", argv[2], strerror(errno));
    int n = atoi(argv[3]), block = atoi(argv[4]), ntargets = argc - 5;
    int fds[8];
    char names[8][64];
    if (ntargets > 8) die("at most 8 targets");
    for (int i = 0; i < ntargets; i++) {
        char path[256];
        if (sscanf(argv[5 + i], "%63[^=]=%255s", names[i], path) != 2) die("bad target '%s' (NAME=SOCKET)", argv[5 + i]);
        fds[i] = connect_to(path);
    }
    long long *rt = malloc(sizeof *rt * (size_t)block);
    char buf[256];
    for (int done = 0, b = 0; done < n; done += block, b++) {
        int count = n - done < block ? n - done : block;
        for (int k = 0; k < ntargets; k++) {
            int i = b % 2 ? ntargets - 1 - k : k;
            for (int j = 0; j < count; j++) {
                long long t0 = now_ns();
                send_packet(fds[i], "12345S\n", 7, "status");
                ssize_t r = recv_packet(fds[i], buf, sizeof buf - 1, t0 + TIMEOUT_NS, "status");
                rt[j] = now_ns() - t0;
                if (r < 2 || buf[0] != 'S') { buf[r] = 0; die("%s: status answered '%s'", names[i], buf); }
            }
            for (int j = 0; j < count; j++) fprintf(out, "%s %lld\n", names[i], rt[j]);
        }
    }
    fclose(out);
    return 0;
}

/* ---- start-up ---- */

static int cmd_startup(int argc, char **argv) {
    if (argc < 6 || strcmp(argv[4], "--") != 0) die("usage: client startup SOCKET N -- PROGRAM ARG...");
    const char *path = argv[2];
    int n = atoi(argv[3]);
    for (int i = 0; i < n; i++) {
        unlink(path);
        long long t0 = now_ns();
        pid_t pid = fork();
        if (pid < 0) die("fork: %s", strerror(errno));
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            execv(argv[5], argv + 5);
            _exit(127);
        }
        int fd;
        while ((fd = try_connect(path)) < 0) {
            if (errno != ENOENT && errno != ECONNREFUSED) die("connect %s: %s", path, strerror(errno));
            if (now_ns() - t0 > 10 * 1000000000LL) die("%s did not listen within 10 s", argv[5]);
            if (waitpid(pid, NULL, WNOHANG) == pid) die("%s exited at start", argv[5]);
            sleep_ns(50000);
        }
        long long connected = now_ns() - t0;
        char buf[256];
        send_packet(fd, "12345S\n", 7, "status");
        recv_packet(fd, buf, sizeof buf, now_ns() + TIMEOUT_NS, "first status");
        long long replied = now_ns() - t0;
        close(fd);
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        printf("%lld %lld\n", connected, replied);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2 && strcmp(argv[1], "latency") == 0) return cmd_latency(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "status") == 0) return cmd_status(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "doors") == 0) return cmd_doors(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "startup") == 0) return cmd_startup(argc, argv);
    die("usage: client latency|doors|status|startup ... (see the comment at the top of bench/client.c)");
}
