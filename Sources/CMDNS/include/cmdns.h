#ifndef CMDNS_H
#define CMDNS_H

#include <stddef.h>

/// A thin layer over libavahi-client for one DNS-SD service published from the caller's own
/// thread: the thread drives avahi's simple poll (cmdns_iterate), the library's callbacks are
/// turned into events the caller takes one at a time, so no callback ever crosses into Swift.
typedef struct cmdns cmdns;

/// What happened. The client's states: RUNNING (the daemon answers: register now),
/// CONNECTING (the daemon is not there; the client waits for it to appear), REGISTERING and
/// HOST_COLLISION (the daemon is establishing its host name: the service was withdrawn, register
/// again on RUNNING), FAILED with an avahi error in `code` (AVAHI_ERR_DISCONNECTED: the daemon or
/// the bus went away; connect again). The service's: ESTABLISHED (published), NAME_COLLISION
/// (another host has the name: choose another and publish again), GROUP_FAILED with `code`.
enum {
    CMDNS_RUNNING = 1,
    CMDNS_CONNECTING = 2,
    CMDNS_REGISTERING = 3,
    CMDNS_HOST_COLLISION = 4,
    CMDNS_FAILED = 5,
    CMDNS_ESTABLISHED = 6,
    CMDNS_NAME_COLLISION = 7,
    CMDNS_GROUP_FAILED = 8,
};

typedef struct {
    int kind;
    int code;
} cmdns_event;

/// avahi's error numbers the caller acts on (avahi-common/error.h).
enum { CMDNS_ERR_COLLISION = -8, CMDNS_ERR_DISCONNECTED = -23, CMDNS_ERR_NO_DAEMON = -26 };

/// Where a service is published (avahi-common/address.h): CMDNS_IF_ANY, or an interface index
/// (if_nametoindex); CMDNS_PROTO_ANY, or IPv4 or IPv6 only. Which to use is the caller's choice.
enum { CMDNS_IF_ANY = -1 };
enum { CMDNS_PROTO_ANY = -1, CMDNS_PROTO_INET = 0, CMDNS_PROTO_INET6 = 1 };

/// A simple poll that also watches `wake_fd` (an eventfd another thread signals; the caller
/// drains it), so cmdns_iterate returns when there is work for the thread. NULL: out of memory.
cmdns *cmdns_new(int wake_fd);

/// Creates the client (freeing any previous one) with AVAHI_CLIENT_NO_FAIL: while avahi-daemon
/// is not there it waits for it (CONNECTING). 0, or an avahi error when not even that is
/// possible (no system D-Bus).
int cmdns_connect(cmdns *m);

/// Frees the client and its service (the daemon withdraws the records); events not yet taken,
/// which were about it, are dropped.
void cmdns_disconnect(cmdns *m);

/// Publishes the service (withdrawing what was published before) on `interface` and `protocol`
/// (CMDNS_IF_ANY, CMDNS_PROTO_ANY: everywhere): `name`, `type` such as "_hap._tcp", `port`, and
/// the TXT record as `txt_len` bytes of NUL-terminated "key=value" strings, one after the other.
/// 0 or an avahi error.
int cmdns_publish(cmdns *m, int interface, int protocol, const char *name, const char *type, int port,
                  const char *txt, size_t txt_len);

/// Replaces the TXT record of the published service (same `interface`, `protocol`, `name` and
/// `type` as published: avahi finds the record by them). 0 or an error.
int cmdns_update_txt(cmdns *m, int interface, int protocol, const char *name, const char *type,
                     const char *txt, size_t txt_len);

/// Withdraws the service, keeping the client.
void cmdns_withdraw(cmdns *m);

/// Runs one round of the poll: waits up to `timeout_ms` (-1: until something happens) and
/// dispatches what is ready. 0, or -1 with errno when polling failed.
int cmdns_iterate(cmdns *m, int timeout_ms);

/// Takes the oldest event: 1 when there was one, 0 otherwise.
int cmdns_next_event(cmdns *m, cmdns_event *out);

/// avahi's next name after `name` collided ("Garage" -> "Garage #2"), into `out`.
void cmdns_alternative_name(const char *name, char *out, size_t out_len);

/// An avahi error in words.
const char *cmdns_strerror(int code);

/// For `garaged doctor`: asks avahi-daemon for its version without waiting for it (no
/// AVAHI_CLIENT_NO_FAIL). 0 with the version in `version`, or an avahi error
/// (AVAHI_ERR_NO_DAEMON: it is not running).
int cmdns_probe(char *version, size_t version_len);

/// Frees the client and the poll.
void cmdns_destroy(cmdns *m);

#endif
