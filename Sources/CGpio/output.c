// output.c: the relay (and the warning and light outputs) as a line requested as an output at
// its inactive level in the same request, set active and inactive, released inactive. libgpiod
// v1 or v2, picked at compile time (see cgpio_internal.h).

#include "cgpio_internal.h"

struct cgpio_output {
#if CGPIO_LIBGPIOD_V1
    // In v1 the line object belongs to the chip, so the chip stays open for the line's life.
    struct gpiod_chip *chip;
    struct gpiod_line *line;
#else
    // In v2 the request owns its own file descriptor; the chip is closed after the request.
    struct gpiod_line_request *request;
#endif
    unsigned int offset;
};

const char *cgpio_api_version(void) {
#if CGPIO_LIBGPIOD_V1
    return "v1";
#else
    return "v2";
#endif
}

cgpio_output *cgpio_output_open(const char *chip, const char *line, int active_low,
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

    cgpio_output *out = calloc(1, sizeof(*out));
    if (out == NULL) {
        cgpio_set_err(err, err_len, "cannot request GPIO line %s:%s: out of memory.", facts.name,
                line_text);
        gpiod_chip_close(c);
        return NULL;
    }
    out->offset = offset;

#if CGPIO_LIBGPIOD_V1
    struct gpiod_line *l = gpiod_chip_get_line(c, offset);
    if (l == NULL) {
        int e = errno;
        cgpio_describe_request_failure(e, c, &facts, line, offset, "an output", err, err_len);
        free(out);
        gpiod_chip_close(c);
        return NULL;
    }
    // Direction and initial value in the same request. The value is logical: with the
    // active-low flag the kernel drives the pin high for 0, so the relay stays off either way.
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = GPIOD_LINE_REQUEST_DIRECTION_OUTPUT,
        .flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0,
    };
    if (gpiod_line_request(l, &config, 0) != 0) {
        int e = errno;
        cgpio_describe_request_failure(e, c, &facts, line, offset, "an output", err, err_len);
        free(out);
        gpiod_chip_close(c);
        return NULL;
    }
    out->chip = c;
    out->line = l;
    return out;
#else
    struct gpiod_line_settings *settings = NULL;
    struct gpiod_line_config *line_cfg = NULL;
    struct gpiod_request_config *req_cfg = NULL;
    struct gpiod_line_request *request = NULL;
    int e = 0;
    errno = 0;
    // Direction and initial value in the same request. Active-low is applied by the kernel, so
    // INACTIVE means "relay off" in both polarities and the pin never goes active here.
    if ((settings = gpiod_line_settings_new()) == NULL ||
        (line_cfg = gpiod_line_config_new()) == NULL ||
        (req_cfg = gpiod_request_config_new()) == NULL ||
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) != 0 ||
        gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE) != 0) {
        e = errno ? errno : ENOMEM;
    } else {
        gpiod_line_settings_set_active_low(settings, active_low != 0);
        gpiod_request_config_set_consumer(req_cfg, consumer);
        if (gpiod_line_config_add_line_settings(line_cfg, &offset, 1, settings) != 0 ||
            (request = gpiod_chip_request_lines(c, req_cfg, line_cfg)) == NULL)
            e = errno ? errno : EIO;
    }
    gpiod_request_config_free(req_cfg);
    gpiod_line_config_free(line_cfg);
    gpiod_line_settings_free(settings);
    if (request == NULL) {
        cgpio_describe_request_failure(e, c, &facts, line, offset, "an output", err, err_len);
        free(out);
        gpiod_chip_close(c);
        return NULL;
    }
    gpiod_chip_close(c); // the request keeps its own descriptor
    out->request = request;
    return out;
#endif
}

int cgpio_output_set(cgpio_output *out, int active) {
    if (out == NULL)
        return -EINVAL;
#if CGPIO_LIBGPIOD_V1
    if (gpiod_line_set_value(out->line, active ? 1 : 0) != 0)
        return errno ? -errno : -EIO;
#else
    if (gpiod_line_request_set_value(out->request, out->offset,
                                     active ? GPIOD_LINE_VALUE_ACTIVE
                                            : GPIOD_LINE_VALUE_INACTIVE) != 0)
        return errno ? -errno : -EIO;
#endif
    return 0;
}

void cgpio_output_close(cgpio_output *out) {
    if (out == NULL)
        return;
    // Best effort: drive inactive first, so the relay is off even if the kernel keeps the last
    // value after release (it does on most drivers); errors cannot be reported from here.
    (void)cgpio_output_set(out, 0);
#if CGPIO_LIBGPIOD_V1
    gpiod_line_release(out->line);
    gpiod_chip_close(out->chip);
#else
    gpiod_line_request_release(out->request);
#endif
    free(out);
}
