#ifndef CLINUX_H
#define CLINUX_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

/// Linux calls that Swift's Glibc module hides behind _GNU_SOURCE, as plain functions.

/// ppoll with a relative timeout in nanoseconds; timeout_ns < 0 waits forever.
int clinux_ppoll(struct pollfd *fds, unsigned long nfds, int64_t timeout_ns);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int clinux_accept_nonblocking(int listener);

/// The peer's uid from SO_PEERCRED, or -1.
int64_t clinux_peer_uid(int fd);

/// A non-blocking, close-on-exec eventfd.
int clinux_eventfd(void);

/// Names the calling thread (shown by top -H and in core dumps); at most 15 characters.
void clinux_set_thread_name(const char *name);

/// Moves the calling thread to SCHED_FIFO at `priority` and sets its timer slack to 1 ns, so a
/// timed wake-up is not delayed by ordinary work on a busy CPU. Returns 0 or an errno value
/// (EPERM without root or CAP_SYS_NICE); timer slack is set either way.
int clinux_make_thread_realtime(int priority);

#endif
