// input.c: a door's limit switch as a line requested as an input with edge events on both
// edges, each stamped by the kernel on CLOCK_MONOTONIC; read without ever blocking. libgpiod
// v1 or v2, picked at compile time (see cgpio_internal.h).

#include "cgpio_internal.h"

#include <poll.h>

struct cgpio_input {
#if CGPIO_LIBGPIOD_V1
    struct gpiod_chip *chip; // v1: the line belongs to the chip, which stays open
    struct gpiod_line *line;
#else
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
#endif
    unsigned int offset;
};

cgpio_input *cgpio_input_open(const char *chip, const char *line, int active_low,
                              const char *consumer, char *err, size_t err_len) {
    cgpio_set_err(err, err_len, "%s", "");
    const char *line_text = (line != NULL && *line != '\0') ? line : "(none)";
    if (consumer == NULL || *consumer == '\0')
        consumer = "cgpio";
    chip_facts facts;
    unsigned int offset;
    chip_t *c = cgpio_find_line(chip, line, &facts, &offset, err, err_len);
    if (c == NULL)
        return NULL;
    cgpio_input *in = calloc(1, sizeof(*in));
    if (in == NULL) {
        cgpio_set_err(err, err_len, "cannot request GPIO line %s:%s: out of memory.", facts.name, line_text);
        gpiod_chip_close(c);
        return NULL;
    }
    in->offset = offset;
#if CGPIO_LIBGPIOD_V1
    struct gpiod_line *l = gpiod_chip_get_line(c, offset);
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
        .flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0,
    };
    if (l == NULL || gpiod_line_request(l, &config, 0) != 0) {
        cgpio_describe_request_failure(errno, c, &facts, line, offset, "an input", err, err_len);
        free(in);
        gpiod_chip_close(c);
        return NULL;
    }
    in->chip = c;
    in->line = l;
    return in;
#else
    struct gpiod_line_settings *settings = NULL;
    struct gpiod_line_config *line_cfg = NULL;
    struct gpiod_request_config *req_cfg = NULL;
    int e = 0;
    errno = 0;
    if ((settings = gpiod_line_settings_new()) == NULL || (line_cfg = gpiod_line_config_new()) == NULL ||
        (req_cfg = gpiod_request_config_new()) == NULL ||
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) != 0 ||
        gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH) != 0 ||
        gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC) != 0) {
        e = errno ? errno : ENOMEM;
    } else {
        gpiod_line_settings_set_active_low(settings, active_low != 0);
        gpiod_request_config_set_consumer(req_cfg, consumer);
        if (gpiod_line_config_add_line_settings(line_cfg, &offset, 1, settings) != 0 ||
            (in->request = gpiod_chip_request_lines(c, req_cfg, line_cfg)) == NULL)
            e = errno ? errno : EIO;
    }
    gpiod_request_config_free(req_cfg);
    gpiod_line_config_free(line_cfg);
    gpiod_line_settings_free(settings);
    if (in->request == NULL || (in->buffer = gpiod_edge_event_buffer_new(16)) == NULL) {
        cgpio_describe_request_failure(e ? e : ENOMEM, c, &facts, line, offset, "an input", err, err_len);
        if (in->request != NULL)
            gpiod_line_request_release(in->request);
        free(in);
        gpiod_chip_close(c);
        return NULL;
    }
    gpiod_chip_close(c); // the request keeps its own descriptor
    return in;
#endif
}

int cgpio_input_fd(cgpio_input *in) {
#if CGPIO_LIBGPIOD_V1
    return gpiod_line_event_get_fd(in->line);
#else
    return gpiod_line_request_get_fd(in->request);
#endif
}

int cgpio_input_value(cgpio_input *in) {
#if CGPIO_LIBGPIOD_V1
    int v = gpiod_line_get_value(in->line);
    return v < 0 ? (errno ? -errno : -EIO) : v;
#else
    enum gpiod_line_value v = gpiod_line_request_get_value(in->request, in->offset);
    if (v == GPIOD_LINE_VALUE_ERROR)
        return errno ? -errno : -EIO;
    return v == GPIOD_LINE_VALUE_ACTIVE;
#endif
}

int cgpio_input_read_edges(cgpio_input *in, cgpio_edge *edges, int max) {
    int n = 0;
    while (n < max) {
        // Only read what is there: the library's read blocks when nothing is.
        struct pollfd pfd = { .fd = cgpio_input_fd(in), .events = POLLIN };
        int ready = poll(&pfd, 1, 0);
        if (ready < 0)
            return errno == EINTR ? n : -errno;
        if (ready == 0)
            break;
#if CGPIO_LIBGPIOD_V1
        struct gpiod_line_event ev;
        if (gpiod_line_event_read(in->line, &ev) != 0)
            return n > 0 ? n : (errno ? -errno : -EIO);
        edges[n].active = ev.event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        edges[n].timestamp_ns = (uint64_t)ev.ts.tv_sec * 1000000000u + (uint64_t)ev.ts.tv_nsec;
        n++;
#else
        size_t room = (size_t)(max - n) < 16 ? (size_t)(max - n) : 16;
        int got = gpiod_line_request_read_edge_events(in->request, in->buffer, room);
        if (got < 0)
            return n > 0 ? n : (errno ? -errno : -EIO);
        for (int i = 0; i < got; i++) {
            struct gpiod_edge_event *ev = gpiod_edge_event_buffer_get_event(in->buffer, (unsigned long)i);
            edges[n].active = gpiod_edge_event_get_event_type(ev) == GPIOD_EDGE_EVENT_RISING_EDGE;
            edges[n].timestamp_ns = gpiod_edge_event_get_timestamp_ns(ev);
            n++;
        }
#endif
    }
    return n;
}

void cgpio_input_close(cgpio_input *in) {
    if (in == NULL)
        return;
#if CGPIO_LIBGPIOD_V1
    gpiod_line_release(in->line);
    gpiod_chip_close(in->chip);
#else
    gpiod_edge_event_buffer_free(in->buffer);
    gpiod_line_request_release(in->request);
#endif
    free(in);
}
