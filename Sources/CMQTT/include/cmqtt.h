#ifndef CMQTT_H
#define CMQTT_H

#include <stddef.h>

/// A thin layer over libmosquitto for a client driven from the caller's own poll loop: the
/// library's callbacks are turned into events the caller takes one at a time, so no callback
/// ever crosses into Swift and nothing runs on a thread of the library's.
typedef struct cmqtt cmqtt;

enum { CMQTT_CONNECTED = 1, CMQTT_DISCONNECTED = 2, CMQTT_MESSAGE = 3 };

/// What happened: CONNECTED with the broker's CONNACK code (0 accepted), DISCONNECTED with
/// the reason (0: asked for), MESSAGE with its topic, payload, retain flag and the kernel's
/// stamp (CLOCK_REALTIME ns, 0 if unknown) of the newest data queued when it was read.
typedef struct {
    int kind;
    int code;
    char *topic;
    unsigned char *payload;
    int length;
    int retain;
    long long stamp;
} cmqtt_event;

/// A client with a clean session (nothing queued from before it connected) and a retained
/// last will (`will_payload` on `will_topic`). NULL with a sentence in err on failure.
cmqtt *cmqtt_new(const char *client_id, const char *will_topic, const char *will_payload, char *err, size_t err_len);

/// User name and password (NULL for none). 0 or a libmosquitto error code.
int cmqtt_set_login(cmqtt *c, const char *user, const char *password);

/// TLS with the CA file to trust (NULL: the system's CA folder). 0 or a libmosquitto error code.
int cmqtt_set_tls(cmqtt *c, const char *ca_file);

/// Starts connecting (non-blocking); poll cmqtt_socket for writing and call cmqtt_write.
int cmqtt_connect(cmqtt *c, const char *host, int port, int keepalive);

/// Starts reconnecting after a disconnection.
int cmqtt_reconnect(cmqtt *c);

/// The socket to poll, -1 when there is none.
int cmqtt_socket(cmqtt *c);

/// Non-zero when there is something to write (poll for POLLOUT too).
int cmqtt_want_write(cmqtt *c);

/// Reads, writes, and the keep-alive's housekeeping: 0 or a libmosquitto error code. A read
/// first notes the kernel's receive stamp of what is queued, for the messages it yields.
int cmqtt_read(cmqtt *c);
int cmqtt_write(cmqtt *c);
int cmqtt_misc(cmqtt *c);

/// 1 while the socket holds bytes not yet read (0: it was empty just now).
int cmqtt_unread(cmqtt *c);

int cmqtt_publish(cmqtt *c, const char *topic, const void *payload, int length, int qos, int retain);
int cmqtt_subscribe(cmqtt *c, const char *topic, int qos);
int cmqtt_disconnect(cmqtt *c);

/// Takes the oldest event: 1 when there was one (free it with cmqtt_event_free), 0 otherwise.
int cmqtt_next_event(cmqtt *c, cmqtt_event *out);
void cmqtt_event_free(cmqtt_event *e);

/// A libmosquitto error code, or a CONNACK code, in words.
const char *cmqtt_strerror(int rc);
const char *cmqtt_connack_string(int code);

/// Disconnects (if connected) and frees everything.
void cmqtt_destroy(cmqtt *c);

#endif
