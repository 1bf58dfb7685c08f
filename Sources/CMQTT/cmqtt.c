// cmqtt.c: libmosquitto for a caller-driven poll loop; see cmqtt.h.

#include "cmqtt.h"

#include <errno.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mosquitto.h>

typedef struct node {
    cmqtt_event event;
    struct node *next;
} node;

struct cmqtt {
    struct mosquitto *mosq;
    node *head, *tail;
    /// CLOCK_REALTIME ns of the newest data queued when the current read began (0: unknown).
    long long read_stamp;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void lib_init(void) { mosquitto_lib_init(); }

static void push(cmqtt *c, cmqtt_event e) {
    node *n = calloc(1, sizeof(*n));
    if (n == NULL) {
        free(e.topic);
        free(e.payload);
        return;
    }
    n->event = e;
    if (c->tail) c->tail->next = n; else c->head = n;
    c->tail = n;
}

static void on_connect(struct mosquitto *m, void *obj, int rc) {
    // Each connection is a new socket: the kernel stamps what arrives on it from now on.
    int fd = mosquitto_socket(m), on = 1;
    if (fd >= 0) (void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
    push(obj, (cmqtt_event){ .kind = CMQTT_CONNECTED, .code = rc });
}

static void on_disconnect(struct mosquitto *m, void *obj, int rc) {
    (void)m;
    push(obj, (cmqtt_event){ .kind = CMQTT_DISCONNECTED, .code = rc });
}

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg) {
    (void)m;
    cmqtt *c = obj;
    cmqtt_event e = { .kind = CMQTT_MESSAGE, .retain = msg->retain, .length = msg->payloadlen, .stamp = c->read_stamp };
    e.topic = strdup(msg->topic ? msg->topic : "");
    e.payload = malloc(msg->payloadlen > 0 ? (size_t)msg->payloadlen : 1);
    if (e.topic == NULL || e.payload == NULL) {
        free(e.topic);
        free(e.payload);
        return;
    }
    if (msg->payloadlen > 0) memcpy(e.payload, msg->payload, (size_t)msg->payloadlen);
    push(obj, e);
}

cmqtt *cmqtt_new(const char *client_id, const char *will_topic, const char *will_payload, char *err, size_t err_len) {
    pthread_once(&once, lib_init);
    cmqtt *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    c->mosq = mosquitto_new(client_id, true, c);
    if (c->mosq == NULL) {
        snprintf(err, err_len, "cannot create an MQTT client: %s", strerror(errno));
        free(c);
        return NULL;
    }
    mosquitto_int_option(c->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
    mosquitto_connect_callback_set(c->mosq, on_connect);
    mosquitto_disconnect_callback_set(c->mosq, on_disconnect);
    mosquitto_message_callback_set(c->mosq, on_message);
    if (will_topic != NULL) {
        int rc = mosquitto_will_set(c->mosq, will_topic, (int)strlen(will_payload), will_payload, 1, true);
        if (rc != MOSQ_ERR_SUCCESS) {
            snprintf(err, err_len, "cannot set the MQTT last will: %s", mosquitto_strerror(rc));
            mosquitto_destroy(c->mosq);
            free(c);
            return NULL;
        }
    }
    return c;
}

int cmqtt_set_login(cmqtt *c, const char *user, const char *password) {
    return mosquitto_username_pw_set(c->mosq, user, password);
}

int cmqtt_set_tls(cmqtt *c, const char *ca_file) {
    return mosquitto_tls_set(c->mosq, ca_file, ca_file ? NULL : "/etc/ssl/certs", NULL, NULL, NULL);
}

int cmqtt_connect(cmqtt *c, const char *host, int port, int keepalive) {
    return mosquitto_connect_async(c->mosq, host, port, keepalive);
}

int cmqtt_reconnect(cmqtt *c) { return mosquitto_reconnect_async(c->mosq); }
int cmqtt_socket(cmqtt *c) { return mosquitto_socket(c->mosq); }
int cmqtt_want_write(cmqtt *c) { return mosquitto_want_write(c->mosq) ? 1 : 0; }
// The kernel stamps each TCP segment as it arrives (SO_TIMESTAMPNS); peeking one byte reports
// the stamp of the buffer at the head of the queue. TCP merges segments that wait unread into
// one buffer stamped with the newest, so this is when the newest queued data arrived: a lower
// bound on how long the oldest has waited (the caller bounds it from above).
static void take_stamp(cmqtt *c) {
    c->read_stamp = 0;
    int fd = mosquitto_socket(c->mosq);
    if (fd < 0) return;
    char byte;
    char control[CMSG_SPACE(sizeof(struct timespec))];
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control) };
    if (recvmsg(fd, &m, MSG_PEEK | MSG_DONTWAIT) <= 0) return;
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h != NULL; h = CMSG_NXTHDR(&m, h)) {
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(h), sizeof(ts));
            c->read_stamp = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
        }
    }
}

int cmqtt_read(cmqtt *c) {
    take_stamp(c);
    return mosquitto_loop_read(c->mosq, 1);
}

int cmqtt_unread(cmqtt *c) {
    int fd = mosquitto_socket(c->mosq), n = 0;
    if (fd < 0) return 0;
    if (ioctl(fd, FIONREAD, &n) != 0) return 1;
    return n > 0 ? 1 : 0;
}
int cmqtt_write(cmqtt *c) { return mosquitto_loop_write(c->mosq, 1); }
int cmqtt_misc(cmqtt *c) { return mosquitto_loop_misc(c->mosq); }

int cmqtt_publish(cmqtt *c, const char *topic, const void *payload, int length, int qos, int retain) {
    return mosquitto_publish(c->mosq, NULL, topic, length, payload, qos, retain != 0);
}

int cmqtt_subscribe(cmqtt *c, const char *topic, int qos) { return mosquitto_subscribe(c->mosq, NULL, topic, qos); }
int cmqtt_disconnect(cmqtt *c) { return mosquitto_disconnect(c->mosq); }

int cmqtt_next_event(cmqtt *c, cmqtt_event *out) {
    node *n = c->head;
    if (n == NULL) return 0;
    c->head = n->next;
    if (c->head == NULL) c->tail = NULL;
    *out = n->event;
    free(n);
    return 1;
}

void cmqtt_event_free(cmqtt_event *e) {
    free(e->topic);
    free(e->payload);
    e->topic = NULL;
    e->payload = NULL;
}

const char *cmqtt_strerror(int rc) { return mosquitto_strerror(rc); }
const char *cmqtt_connack_string(int code) { return mosquitto_connack_string(code); }

void cmqtt_destroy(cmqtt *c) {
    if (c == NULL) return;
    cmqtt_event e;
    while (cmqtt_next_event(c, &e)) cmqtt_event_free(&e);
    mosquitto_destroy(c->mosq);
    free(c);
}
