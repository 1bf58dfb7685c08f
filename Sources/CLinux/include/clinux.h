#ifndef CLINUX_H
#define CLINUX_H

#include <sys/socket.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/// Linux calls that Swift's Glibc module hides behind _GNU_SOURCE, as plain functions.

/// ppoll with a relative timeout in nanoseconds; timeout_ns < 0 waits forever.
int clinux_ppoll(struct pollfd *fds, unsigned long nfds, int64_t timeout_ns);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int clinux_accept_nonblocking(int listener);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC, also saying who connected (a TCP peer).
int clinux_accept_peer(int listener, struct sockaddr *peer, socklen_t *len);

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

/// Asks the kernel to stamp every packet this socket receives (SO_TIMESTAMPNS, CLOCK_REALTIME).
/// Returns 0 or an errno value.
int clinux_enable_rx_timestamps(int fd);

/// Bytes waiting unread in a socket's receive queue (SIOCINQ), or -1.
int clinux_queued_bytes(int fd);

/// recv(MSG_DONTWAIT) of one packet that also returns the kernel's receive stamp in ns since
/// the epoch (CLOCK_REALTIME) in *stamp_ns, or -1 there when the packet carries none, and sets
/// *truncated when the packet was longer than `length`. Returns what recv returns (errno set
/// on -1).
ssize_t clinux_recv_stamped(int fd, void *buffer, size_t length, int64_t *stamp_ns, int *truncated);

/// How many file descriptors this process has open (from /proc/self/fd), or -1.
int clinux_open_fd_count(void);

/// The soft RLIMIT_NOFILE, or -1 when unlimited or unknown.
int64_t clinux_fd_limit(void);

/// Fills `set` with every signal another process can send whose default action would end the
/// process at once (HUP, INT, QUIT, TERM, USR1, USR2, ALRM, VTALRM, PROF, IO, PWR, STKFLT,
/// XCPU and the real-time ones). The daemon blocks them all and takes them with sigwait, so
/// none can end it mid-press with the relay energised.
void clinux_daemon_signals(sigset_t *set);

/// Forbids core dumps of this process, which would hold its secrets (PINs, passwords, keys):
/// PR_SET_DUMPABLE 0 (its /proc files become root's, its own uid cannot ptrace it) and
/// RLIMIT_CORE 0, soft and hard (honoured where fs.suid_dumpable = 2 or systemd-coredump would
/// still take a dump of a process that is not dumpable; left alone when already 0, as under the
/// unit's LimitCORE=0, whose seccomp filter refuses setrlimit). Returns 0 or an errno value.
int clinux_forbid_core_dumps(void);

/// The signal's abbreviation without "SIG" ("HUP", "RTMIN+3"), written into `out`.
void clinux_signal_name(int sig, char *out, size_t length);

/// Opens a serial device (or a pty) for Security+ 2.0: read-write, non-blocking, close-on-exec,
/// no controlling tty, exclusive (TIOCEXCL), raw 9600 8N1 without flow control or inversion.
/// Returns the descriptor, or -errno (the step that failed is the caller's message).
int clinux_serial_open(const char *path, int baud, int even_parity);
/// Sets an open serial device's (or pty's) line again: raw, 8 data bits, one stop bit, `baud`,
/// even parity or none (none on a pty), and flushes what was waiting. 0, or -errno.
int clinux_serial_set(int fd, int baud, int even_parity);

/// Holds a break on the line for `ns` nanoseconds (TIOCSBRK, sleep, TIOCCBRK): tcsendbreak's
/// quarter second or more is far longer than the 1.3 ms start signal Security+ 2.0 needs.
/// Returns 0 or an errno value; a device without breaks (a pty) succeeds without one.
int clinux_serial_break(int fd, int64_t ns);
/// Bytes written to a serial device (or pty) and not yet sent (TIOCOUTQ); -errno on failure.
int clinux_serial_unsent(int fd);

#endif
