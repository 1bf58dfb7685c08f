#define _GNU_SOURCE
#include "clinux.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>

int clinux_ppoll(struct pollfd *fds, unsigned long nfds, int64_t timeout_ns) {
    if (timeout_ns < 0) return ppoll(fds, nfds, NULL, NULL);
    struct timespec ts = { .tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000 };
    return ppoll(fds, nfds, &ts, NULL);
}

int clinux_accept_nonblocking(int listener) {
    return accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
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
