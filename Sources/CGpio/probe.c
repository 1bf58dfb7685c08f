// probe.c: looking at a line without requesting it, for `garaged doctor`: does the chip exist,
// does the line, and who holds it. Works the same on libgpiod v1 and v2.

#include "cgpio_internal.h"

int cgpio_probe(const char *chip, const char *line, cgpio_line_report *out, char *err,
                size_t err_len) {
    memset(out, 0, sizeof(*out));
    chip_facts facts;
    unsigned int offset;
    chip_t *c = cgpio_find_line(chip, line, &facts, &offset, err, err_len);
    if (c == NULL)
        return -1;
    snprintf(out->chip_name, sizeof(out->chip_name), "%s", facts.name);
    snprintf(out->chip_label, sizeof(out->chip_label), "%s", facts.label);
    out->offset = offset;
#if CGPIO_LIBGPIOD_V1
    struct gpiod_line *l = gpiod_chip_get_line(c, offset);
    if (l == NULL || gpiod_line_update(l) != 0) {
        int e = errno;
        cgpio_set_err(err, err_len, "cannot read GPIO line %s:%u's state (%s).", facts.name, offset,
                      strerror(e));
        gpiod_chip_close(c);
        return -1;
    }
    const char *name = gpiod_line_name(l);
    const char *consumer = gpiod_line_consumer(l);
    snprintf(out->line_name, sizeof(out->line_name), "%s", name ? name : "");
    out->used = gpiod_line_is_used(l) ? 1 : 0;
    snprintf(out->consumer, sizeof(out->consumer), "%s", consumer ? consumer : "");
#else
    struct gpiod_line_info *info = gpiod_chip_get_line_info(c, offset);
    if (info == NULL) {
        int e = errno;
        cgpio_set_err(err, err_len, "cannot read GPIO line %s:%u's state (%s).", facts.name, offset,
                      strerror(e));
        gpiod_chip_close(c);
        return -1;
    }
    const char *name = gpiod_line_info_get_name(info);
    const char *consumer = gpiod_line_info_get_consumer(info);
    snprintf(out->line_name, sizeof(out->line_name), "%s", name ? name : "");
    out->used = gpiod_line_info_is_used(info) ? 1 : 0;
    snprintf(out->consumer, sizeof(out->consumer), "%s", consumer ? consumer : "");
    gpiod_line_info_free(info);
#endif
    gpiod_chip_close(c);
    return 0;
}
