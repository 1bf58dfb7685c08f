// cmdns.c: one DNS-SD service through libavahi-client on the caller's thread; see cmdns.h.

#include "cmdns.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/simple-watch.h>
#include <avahi-common/strlst.h>

_Static_assert(CMDNS_ERR_COLLISION == AVAHI_ERR_COLLISION && CMDNS_ERR_DISCONNECTED == AVAHI_ERR_DISCONNECTED &&
               CMDNS_ERR_NO_DAEMON == AVAHI_ERR_NO_DAEMON, "cmdns.h's error numbers are avahi's");
_Static_assert(CMDNS_IF_ANY == AVAHI_IF_UNSPEC && CMDNS_PROTO_ANY == AVAHI_PROTO_UNSPEC &&
               CMDNS_PROTO_INET == AVAHI_PROTO_INET && CMDNS_PROTO_INET6 == AVAHI_PROTO_INET6,
               "cmdns.h's interface and protocol numbers are avahi's");

struct cmdns {
    AvahiSimplePoll *poll;
    AvahiWatch *wake;
    AvahiClient *client;
    AvahiEntryGroup *group;
    /// Set while the client is being freed: what avahi reports then is about the old client.
    int freeing;
    /// The events not yet taken, oldest at `head`.
    cmdns_event *events;
    size_t head, count, capacity;
};

static void push(cmdns *m, int kind, int code) {
    if (m->freeing) return;
    if (m->head > 0 && m->head + m->count == m->capacity) {
        memmove(m->events, m->events + m->head, m->count * sizeof(*m->events));
        m->head = 0;
    }
    if (m->count == m->capacity) {
        size_t capacity = m->capacity ? m->capacity * 2 : 8;
        cmdns_event *grown = realloc(m->events, capacity * sizeof(*grown));
        // Out of memory: the event is lost, and so is more than this process's mDNS.
        if (grown == NULL) return;
        m->events = grown;
        m->capacity = capacity;
    }
    m->events[m->head + m->count++] = (cmdns_event){ .kind = kind, .code = code };
}

// The eventfd only has to end the poll's wait; the caller drains it and looks at its inbox.
static void on_wake(AvahiWatch *w, int fd, AvahiWatchEvent event, void *userdata) {
    (void)w; (void)fd; (void)event; (void)userdata;
}

// Called from avahi_client_new itself the first time: `c` is the client, m->client not yet.
static void on_client(AvahiClient *c, AvahiClientState state, void *userdata) {
    cmdns *m = userdata;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING: push(m, CMDNS_RUNNING, 0); break;
    case AVAHI_CLIENT_CONNECTING: push(m, CMDNS_CONNECTING, 0); break;
    case AVAHI_CLIENT_S_REGISTERING: push(m, CMDNS_REGISTERING, 0); break;
    case AVAHI_CLIENT_S_COLLISION: push(m, CMDNS_HOST_COLLISION, 0); break;
    case AVAHI_CLIENT_FAILURE: push(m, CMDNS_FAILED, avahi_client_errno(c)); break;
    }
}

static void on_group(AvahiEntryGroup *g, AvahiEntryGroupState state, void *userdata) {
    cmdns *m = userdata;
    switch (state) {
    case AVAHI_ENTRY_GROUP_ESTABLISHED: push(m, CMDNS_ESTABLISHED, 0); break;
    case AVAHI_ENTRY_GROUP_COLLISION: push(m, CMDNS_NAME_COLLISION, 0); break;
    case AVAHI_ENTRY_GROUP_FAILURE: push(m, CMDNS_GROUP_FAILED, avahi_client_errno(avahi_entry_group_get_client(g))); break;
    default: break;
    }
}

cmdns *cmdns_new(int wake_fd) {
    cmdns *m = calloc(1, sizeof(*m));
    if (m == NULL) return NULL;
    m->poll = avahi_simple_poll_new();
    if (m->poll == NULL) {
        free(m);
        return NULL;
    }
    const AvahiPoll *api = avahi_simple_poll_get(m->poll);
    m->wake = api->watch_new(api, wake_fd, AVAHI_WATCH_IN, on_wake, m);
    if (m->wake == NULL) {
        avahi_simple_poll_free(m->poll);
        free(m);
        return NULL;
    }
    return m;
}

void cmdns_disconnect(cmdns *m) {
    if (m->client != NULL) {
        m->freeing = 1;
        // Frees the entry group too.
        avahi_client_free(m->client);
        m->freeing = 0;
    }
    m->client = NULL;
    m->group = NULL;
    m->head = m->count = 0;
}

int cmdns_connect(cmdns *m) {
    cmdns_disconnect(m);
    int error = 0;
    m->client = avahi_client_new(avahi_simple_poll_get(m->poll), AVAHI_CLIENT_NO_FAIL, on_client, m, &error);
    return m->client != NULL ? 0 : (error != 0 ? error : AVAHI_ERR_FAILURE);
}

// The TXT record from NUL-terminated strings laid one after the other; NULL when empty or out of memory.
static AvahiStringList *txt_list(const char *txt, size_t txt_len) {
    AvahiStringList *list = NULL;
    for (size_t at = 0; at < txt_len;) {
        size_t n = strnlen(txt + at, txt_len - at);
        list = avahi_string_list_add_arbitrary(list, (const uint8_t *)txt + at, n);
        at += n + 1;
    }
    // Each add went to the front: the record keeps the caller's order.
    return avahi_string_list_reverse(list);
}

int cmdns_publish(cmdns *m, int interface, int protocol, const char *name, const char *type, int port,
                  const char *txt, size_t txt_len) {
    if (m->client == NULL) return AVAHI_ERR_BAD_STATE;
    if (m->group == NULL) {
        m->group = avahi_entry_group_new(m->client, on_group, m);
        if (m->group == NULL) return avahi_client_errno(m->client);
    } else {
        avahi_entry_group_reset(m->group);
    }
    AvahiStringList *list = txt_list(txt, txt_len);
    int rc = avahi_entry_group_add_service_strlst(m->group, interface, protocol, 0, name, type,
                                                  NULL, NULL, (uint16_t)port, list);
    avahi_string_list_free(list);
    if (rc == 0) rc = avahi_entry_group_commit(m->group);
    if (rc != 0) avahi_entry_group_reset(m->group);
    return rc;
}

int cmdns_update_txt(cmdns *m, int interface, int protocol, const char *name, const char *type,
                     const char *txt, size_t txt_len) {
    if (m->group == NULL) return AVAHI_ERR_BAD_STATE;
    AvahiStringList *list = txt_list(txt, txt_len);
    int rc = avahi_entry_group_update_service_txt_strlst(m->group, interface, protocol, 0, name, type,
                                                         NULL, list);
    avahi_string_list_free(list);
    return rc;
}

void cmdns_withdraw(cmdns *m) {
    if (m->group != NULL) avahi_entry_group_reset(m->group);
}

int cmdns_iterate(cmdns *m, int timeout_ms) {
    int rc = avahi_simple_poll_iterate(m->poll, timeout_ms);
    // 1 is a quit nobody here asks for; only a failed poll is an error.
    return rc < 0 ? -1 : 0;
}

int cmdns_next_event(cmdns *m, cmdns_event *out) {
    if (m->count == 0) return 0;
    *out = m->events[m->head++];
    if (--m->count == 0) m->head = 0;
    return 1;
}

void cmdns_alternative_name(const char *name, char *out, size_t out_len) {
    char *next = avahi_alternative_service_name(name);
    snprintf(out, out_len, "%s", next != NULL ? next : name);
    avahi_free(next);
}

const char *cmdns_strerror(int code) { return avahi_strerror(code); }

int cmdns_probe(char *version, size_t version_len) {
    if (version_len > 0) version[0] = 0;
    AvahiSimplePoll *poll = avahi_simple_poll_new();
    if (poll == NULL) return AVAHI_ERR_NO_MEMORY;
    int error = 0;
    AvahiClient *client = avahi_client_new(avahi_simple_poll_get(poll), 0, NULL, NULL, &error);
    if (client != NULL) {
        const char *v = avahi_client_get_version_string(client);
        snprintf(version, version_len, "%s", v != NULL ? v : "");
        avahi_client_free(client);
        error = 0;
    } else if (error == 0) {
        error = AVAHI_ERR_FAILURE;
    }
    avahi_simple_poll_free(poll);
    return error;
}

void cmdns_destroy(cmdns *m) {
    cmdns_disconnect(m);
    const AvahiPoll *api = avahi_simple_poll_get(m->poll);
    api->watch_free(m->wake);
    avahi_simple_poll_free(m->poll);
    free(m->events);
    free(m);
}
