#define _GNU_SOURCE
#include "clinux.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <fcntl.h>
#include <termios.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int clinux_ppoll(struct pollfd *fds, unsigned long nfds, int64_t timeout_ns) {
    if (timeout_ns < 0) return ppoll(fds, nfds, NULL, NULL);
    struct timespec ts = { .tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000 };
    return ppoll(fds, nfds, &ts, NULL);
}

int clinux_accept_nonblocking(int listener) {
    return accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int clinux_accept_peer(int listener, struct sockaddr *peer, socklen_t *len) {
    return accept4(listener, peer, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int64_t clinux_peer_uid(int fd) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    return (int64_t)cred.uid;
}

int clinux_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

void clinux_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

int clinux_make_thread_realtime(int priority) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    struct sched_param param = { .sched_priority = priority };
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
}

int clinux_enable_rx_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0 ? 0 : errno;
}

int clinux_queued_bytes(int fd) {
    int n = 0;
    return ioctl(fd, SIOCINQ, &n) == 0 ? n : -1;
}

ssize_t clinux_recv_stamped(int fd, void *buffer, size_t length, int64_t *stamp_ns, int *truncated) {
    struct iovec iov = { .iov_base = buffer, .iov_len = length };
    union { char buf[CMSG_SPACE(sizeof(struct timespec))]; struct cmsghdr align; } control;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
                          .msg_control = control.buf, .msg_controllen = sizeof control.buf };
    *stamp_ns = -1;
    *truncated = 0;
    ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) return n;
    *truncated = (msg.msg_flags & MSG_TRUNC) != 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            if (ts.tv_sec != 0 || ts.tv_nsec != 0) *stamp_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        }
    }
    return n;
}

int clinux_open_fd_count(void) {
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1;  /* the directory stream's own descriptor */
}

int64_t clinux_fd_limit(void) {
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return -1;
    return (int64_t)r.rlim_cur;
}

void clinux_daemon_signals(sigset_t *set) {
    static const int fatal[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
                                 SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU };
    sigemptyset(set);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaddset(set, fatal[i]);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) sigaddset(set, s);
}

void clinux_signal_name(int sig, char *out, size_t length) {
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev != NULL) snprintf(out, length, "%s", abbrev);
    else if (sig >= SIGRTMIN && sig <= SIGRTMAX) snprintf(out, length, "RTMIN+%d", sig - SIGRTMIN);
    else snprintf(out, length, "%d", sig);
}

int clinux_forbid_core_dumps(void) {
    int err = 0;
    struct rlimit core;
    if (getrlimit(RLIMIT_CORE, &core) != 0 || core.rlim_cur != 0 || core.rlim_max != 0) {
        struct rlimit none = { .rlim_cur = 0, .rlim_max = 0 };
        if (setrlimit(RLIMIT_CORE, &none) != 0) err = errno;
    }
    if (prctl(PR_SET_DUMPABLE, 0UL, 0UL, 0UL, 0UL) != 0) err = errno;
    return err;
}

static speed_t clinux_speed(int baud) {
    switch (baud) {
    case 1200: return B1200;
    case 2400: return B2400;
    case 4800: return B4800;
    case 9600: return B9600;
    case 19200: return B19200;
    default: return B0;
    }
}

/* A Unix 98 pty's slave (majors 136 to 143): no parity, no break. */
static int clinux_is_pty(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) return 0;
    unsigned int m = major(st.st_rdev);
    return m >= 136 && m <= 143;
}

int clinux_serial_set(int fd, int baud, int even_parity) {
    speed_t speed = clinux_speed(baud);
    if (speed == B0) return -EINVAL;
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -errno;
    cfmakeraw(&t);
    t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS | CSIZE);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_iflag &= ~(IXON | IXOFF | IXANY | INPCK | IGNBRK | BRKINT | PARMRK | IGNPAR);
    if (even_parity) {
        // Even parity, checked: a byte with a parity error is dropped by the kernel.
        t.c_cflag |= PARENB;
        t.c_iflag |= INPCK | IGNPAR;
    }
    t.c_cc[VMIN] = 1;  // with O_NONBLOCK: EAGAIN when empty, 0 only at a hang-up
    t.c_cc[VTIME] = 0;
    int rc = cfsetispeed(&t, speed) != 0 || cfsetospeed(&t, speed) != 0 || tcsetattr(fd, TCSANOW, &t) != 0 ? -errno : 0;
    if (rc == -EINVAL && even_parity && clinux_is_pty(fd)) {
        // A pty carries no parity (the kernel clears PARENB), and some C libraries refuse the
        // change outright: on a pty (the tests' fake opener) the line is set up without it.
        t.c_cflag &= ~PARENB;
        t.c_iflag &= ~(INPCK | IGNPAR);
        rc = tcsetattr(fd, TCSANOW, &t) != 0 ? -errno : 0;
    }
    if (rc != 0) return rc;
    tcflush(fd, TCIOFLUSH);
    return 0;
}

int clinux_serial_open(const char *path, int baud, int even_parity) {
    if (clinux_speed(baud) == B0) return -EINVAL;
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -errno;
    int rc = ioctl(fd, TIOCEXCL) != 0 ? -errno : clinux_serial_set(fd, baud, even_parity);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    return fd;
}

int clinux_serial_unsent(int fd) {
    int n = 0;
    if (ioctl(fd, TIOCOUTQ, &n) != 0) return -errno;
    return n;
}

int clinux_serial_break(int fd, int64_t ns) {
    if (ioctl(fd, TIOCSBRK) != 0) return errno;
    struct timespec d = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
    while (nanosleep(&d, &d) != 0 && errno == EINTR) {}
    if (ioctl(fd, TIOCCBRK) != 0) return errno;
    return 0;
}
