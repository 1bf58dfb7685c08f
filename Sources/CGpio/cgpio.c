// cgpio.c: the version-neutral output-line API of cgpio.h over libgpiod v1 (1.6.x, Debian 12,
// Raspberry Pi OS bookworm) or v2 (2.x, Raspberry Pi OS trixie), picked at compile time.
//
// v1's <gpiod.h> defines GPIOD_LINE_BULK_MAX_LINES; v2's does not. Everything that is not a
// libgpiod call (parsing the arguments, finding the chip by name, path, number or label, and
// wording the errors) is shared, so both builds accept the same arguments and say the same
// things when something goes wrong.

#ifndef _GNU_SOURCE
#define _GNU_SOURCE // scandir, versionsort, snprintf/strdup under -std=c11
#endif

#include "cgpio.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpiod.h>

#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define CGPIO_LIBGPIOD_V1 1
#else
#define CGPIO_LIBGPIOD_V1 0
#endif

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

// ---------------------------------------------------------------------------------------------
// Errors

static void set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t err_len, const char *fmt, ...) {
    if (err == NULL || err_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

static bool is_permission_error(int e) { return e == EACCES || e == EPERM; }

static const char *const permission_hint =
    "add the user to group gpio (sudo usermod -aG gpio USER, then log in again) or run as root";

// ---------------------------------------------------------------------------------------------
// The few libgpiod calls that differ between v1 and v2 for chips.

typedef struct gpiod_chip chip_t;

typedef struct {
    char name[64];  // kernel name, "gpiochip0"
    char label[64]; // kernel label, "pinctrl-bcm2711"
    unsigned int num_lines;
} chip_facts;

// 0 on success, -1 with errno set.
static int chip_get_facts(chip_t *chip, chip_facts *facts) {
    memset(facts, 0, sizeof(*facts));
#if CGPIO_LIBGPIOD_V1
    const char *name = gpiod_chip_name(chip);
    const char *label = gpiod_chip_label(chip);
    snprintf(facts->name, sizeof(facts->name), "%s", name ? name : "?");
    snprintf(facts->label, sizeof(facts->label), "%s", label ? label : "");
    facts->num_lines = gpiod_chip_num_lines(chip);
    return 0;
#else
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (info == NULL)
        return -1;
    const char *name = gpiod_chip_info_get_name(info);
    const char *label = gpiod_chip_info_get_label(info);
    snprintf(facts->name, sizeof(facts->name), "%s", name ? name : "?");
    snprintf(facts->label, sizeof(facts->label), "%s", label ? label : "");
    size_t n = gpiod_chip_info_get_num_lines(info);
    facts->num_lines = n > UINT_MAX ? UINT_MAX : (unsigned int)n;
    gpiod_chip_info_free(info);
    return 0;
#endif
}

// ---------------------------------------------------------------------------------------------
// Argument parsing

// A plain decimal number: digits only, no sign, no spaces. Returns false if it is not one.
// *overflow is set when it is all digits but does not fit an unsigned int.
static bool parse_decimal(const char *s, unsigned int *value, bool *overflow) {
    *overflow = false;
    if (s == NULL || *s == '\0')
        return false;
    unsigned long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        if (!*overflow) {
            v = v * 10 + (unsigned long long)(*p - '0');
            if (v > UINT_MAX)
                *overflow = true;
        }
    }
    *value = (unsigned int)v;
    return true;
}

// ---------------------------------------------------------------------------------------------
// Finding the chip: a path ("/dev/gpiochip0"), a name under /dev ("gpiochip0"), a number ("0",
// as v1's gpiod_chip_open_lookup accepts), or a label matched by scanning /dev/gpiochip*.

static int gpiochip_entry(const struct dirent *d) {
    return strncmp(d->d_name, "gpiochip", 8) == 0;
}

// Returns an open chip, or NULL with a sentence in err. `line` is only used in messages.
static chip_t *open_chip(const char *chip, const char *line, chip_facts *facts, char *err,
                         size_t err_len) {
    if (chip == NULL || *chip == '\0') {
        set_err(err, err_len,
                "cannot request GPIO line %s: no chip given (want a name like gpiochip0, a path "
                "like /dev/gpiochip0 or a chip label; see gpiodetect).",
                line);
        return NULL;
    }

    // A path is taken literally: no label fallback, so a typo in a path is reported as such.
    if (strchr(chip, '/') != NULL) {
        chip_t *c = gpiod_chip_open(chip);
        if (c == NULL) {
            int e = errno;
            if (e == ENOENT)
                set_err(err, err_len,
                        "cannot request GPIO line %s: there is no GPIO chip device %s (%s); "
                        "see gpiodetect for the chips this system has.",
                        line, chip, strerror(e));
            else if (is_permission_error(e))
                set_err(err, err_len,
                        "cannot request GPIO line %s: opening GPIO chip %s failed (%s); %s.", line,
                        chip, strerror(e), permission_hint);
            else if (e == ENOTTY || e == ENODEV)
                set_err(err, err_len,
                        "cannot request GPIO line %s: %s is not a GPIO chip character device "
                        "(%s); see gpiodetect.",
                        line, chip, strerror(e));
            else
                set_err(err, err_len,
                        "cannot request GPIO line %s: opening GPIO chip %s failed (%s).", line,
                        chip, strerror(e));
            return NULL;
        }
        if (chip_get_facts(c, facts) != 0) {
            int e = errno;
            set_err(err, err_len,
                    "cannot request GPIO line %s: reading the chip info of %s failed (%s).", line,
                    chip, strerror(e));
            gpiod_chip_close(c);
            return NULL;
        }
        return c;
    }

    // A name under /dev, or a bare chip number.
    char path[PATH_MAX];
    unsigned int number;
    bool overflow;
    if (parse_decimal(chip, &number, &overflow) && !overflow)
        snprintf(path, sizeof(path), "/dev/gpiochip%u", number);
    else
        snprintf(path, sizeof(path), "/dev/%s", chip);

    int direct_errno = 0;
    chip_t *c = gpiod_chip_open(path);
    if (c != NULL) {
        if (chip_get_facts(c, facts) == 0)
            return c;
        direct_errno = errno;
        gpiod_chip_close(c);
    } else {
        direct_errno = errno;
    }

    // Not openable under that name: try it as a label on every /dev/gpiochip*.
    struct dirent **entries = NULL;
    int n = scandir("/dev", &entries, gpiochip_entry, versionsort);
    int scanned = 0, unopenable = 0, unopenable_errno = 0;
    char first_unopenable[PATH_MAX] = "";
    chip_t *found = NULL;
    for (int i = 0; i < n; i++) {
        if (found == NULL) {
            char candidate[PATH_MAX];
            snprintf(candidate, sizeof(candidate), "/dev/%s", entries[i]->d_name);
            chip_t *cc = gpiod_chip_open(candidate);
            if (cc == NULL) {
                int e = errno;
                if (e != ENOTTY && e != ENODEV) { // not a GPIO chip at all: ignore quietly
                    if (unopenable++ == 0) {
                        unopenable_errno = e;
                        snprintf(first_unopenable, sizeof(first_unopenable), "%s", candidate);
                    }
                }
            } else {
                scanned++;
                if (chip_get_facts(cc, facts) == 0 && strcmp(facts->label, chip) == 0)
                    found = cc;
                else
                    gpiod_chip_close(cc);
            }
        }
        free(entries[i]);
    }
    free(entries);
    if (found != NULL)
        return found;

    // Not found: say why, most useful reason first.
    if (direct_errno != 0 && direct_errno != ENOENT) {
        if (is_permission_error(direct_errno))
            set_err(err, err_len,
                    "cannot request GPIO line %s: opening GPIO chip %s failed (%s); %s.", line,
                    path, strerror(direct_errno), permission_hint);
        else if (direct_errno == ENOTTY || direct_errno == ENODEV)
            set_err(err, err_len,
                    "cannot request GPIO line %s: %s is not a GPIO chip character device (%s) "
                    "and no GPIO chip is labelled \"%s\"; see gpiodetect.",
                    line, path, strerror(direct_errno), chip);
        else
            set_err(err, err_len,
                    "cannot request GPIO line %s: opening GPIO chip %s failed (%s).", line, path,
                    strerror(direct_errno));
    } else if (unopenable > 0 && is_permission_error(unopenable_errno)) {
        set_err(err, err_len,
                "cannot request GPIO line %s: no GPIO chip named or labelled \"%s\" could be "
                "opened (%d chip(s) such as %s refused with: %s); %s.",
                line, chip, unopenable, first_unopenable, strerror(unopenable_errno),
                permission_hint);
    } else if (n <= 0 || (scanned == 0 && unopenable == 0)) {
        set_err(err, err_len,
                "cannot request GPIO line %s: no GPIO chip named or labelled \"%s\" (%s: %s, and "
                "this system has no /dev/gpiochip* devices at all); see gpiodetect.",
                line, chip, path, strerror(ENOENT));
    } else {
        set_err(err, err_len,
                "cannot request GPIO line %s: no GPIO chip named or labelled \"%s\" (%s: %s, and "
                "none of the %d chip(s) in /dev has that label); see gpiodetect.",
                line, chip, path, strerror(ENOENT), scanned);
    }
    return NULL;
}

// ---------------------------------------------------------------------------------------------
// Finding the line: a decimal offset, or a line name.

// Returns 0 and sets *offset, or -1 with a sentence in err.
static int resolve_line(chip_t *chip, const chip_facts *facts, const char *line,
                        unsigned int *offset, char *err, size_t err_len) {
    if (line == NULL || *line == '\0') {
        set_err(err, err_len,
                "cannot request a line on GPIO chip %s [%s]: no line given (want an offset like "
                "17 or a line name like GPIO17; see gpioinfo %s).",
                facts->name, facts->label, facts->name);
        return -1;
    }

    unsigned int value;
    bool overflow;
    if (parse_decimal(line, &value, &overflow)) {
        if (overflow || value >= facts->num_lines) {
            set_err(err, err_len,
                    "cannot request GPIO line %s:%s: offset %s is out of range, chip %s [%s] has "
                    "%u line(s) (offsets 0 to %u); see gpioinfo %s.",
                    facts->name, line, line, facts->name, facts->label, facts->num_lines,
                    facts->num_lines ? facts->num_lines - 1 : 0, facts->name);
            return -1;
        }
        *offset = value;
        return 0;
    }

#if CGPIO_LIBGPIOD_V1
    struct gpiod_line *l = gpiod_chip_find_line(chip, line);
    int found = l ? (int)gpiod_line_offset(l) : -1;
#else
    int found = gpiod_chip_get_line_offset_from_name(chip, line);
#endif
    if (found < 0) {
        int e = errno;
        if (e == ENOENT)
            set_err(err, err_len,
                    "cannot request GPIO line %s:%s: there is no line named \"%s\" on chip %s "
                    "[%s]; see gpioinfo %s for its line names and offsets.",
                    facts->name, line, line, facts->name, facts->label, facts->name);
        else
            set_err(err, err_len,
                    "cannot request GPIO line %s:%s: looking up the line name on chip %s [%s] "
                    "failed (%s).",
                    facts->name, line, facts->name, facts->label, strerror(e));
        return -1;
    }
    *offset = (unsigned int)found;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Request failures

// The consumer label of whoever holds the line, or "" if the library cannot say.
static void holder_of(chip_t *chip, unsigned int offset, char *buf, size_t len) {
    buf[0] = '\0';
#if CGPIO_LIBGPIOD_V1
    struct gpiod_line *l = gpiod_chip_get_line(chip, offset);
    if (l != NULL && gpiod_line_update(l) == 0) {
        const char *consumer = gpiod_line_consumer(l);
        if (consumer != NULL)
            snprintf(buf, len, "%s", consumer);
    }
#else
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (info != NULL) {
        const char *consumer = gpiod_line_info_get_consumer(info);
        if (consumer != NULL)
            snprintf(buf, len, "%s", consumer);
        gpiod_line_info_free(info);
    }
#endif
}

static void describe_request_failure(int e, chip_t *chip, const chip_facts *facts,
                                     const char *line, unsigned int offset, char *err,
                                     size_t err_len) {
    // "gpiochip0:17" or "gpiochip0:17 (GPIO17)" when the caller used a name.
    char where[256];
    unsigned int parsed;
    bool overflow;
    if (parse_decimal(line, &parsed, &overflow))
        snprintf(where, sizeof(where), "%s:%u", facts->name, offset);
    else
        snprintf(where, sizeof(where), "%s:%u (\"%s\")", facts->name, offset, line);

    if (e == EBUSY) {
        char holder[64];
        holder_of(chip, offset, holder, sizeof(holder));
        if (strcmp(holder, "sysfs") == 0)
            set_err(err, err_len,
                    "cannot request GPIO line %s as an output: the line is exported through the "
                    "legacy /sys/class/gpio interface, consumer \"sysfs\" (%s); unexport it "
                    "(echo N > /sys/class/gpio/unexport) and see gpioinfo %s.",
                    where, strerror(e), facts->name);
        else if (holder[0] != '\0')
            set_err(err, err_len,
                    "cannot request GPIO line %s as an output: the line is already in use by "
                    "another process or driver, consumer \"%s\" (%s); see gpioinfo %s.",
                    where, holder, strerror(e), facts->name);
        else
            set_err(err, err_len,
                    "cannot request GPIO line %s as an output: the line is already in use by "
                    "another process or driver (%s); see gpioinfo %s.",
                    where, strerror(e), facts->name);
    } else if (is_permission_error(e)) {
        set_err(err, err_len, "cannot request GPIO line %s as an output (%s); %s.", where,
                strerror(e), permission_hint);
    } else {
        set_err(err, err_len, "cannot request GPIO line %s [%s] as an output (%s).", where,
                facts->label, strerror(e));
    }
}

// ---------------------------------------------------------------------------------------------
// The API

cgpio_output *cgpio_output_open(const char *chip, const char *line, int active_low,
                                const char *consumer, char *err, size_t err_len) {
    set_err(err, err_len, "%s", "");
    const char *line_text = (line != NULL && *line != '\0') ? line : "(none)";
    if (consumer == NULL || *consumer == '\0')
        consumer = "cgpio";

    chip_facts facts;
    chip_t *c = open_chip(chip, line_text, &facts, err, err_len);
    if (c == NULL)
        return NULL;

    unsigned int offset;
    if (resolve_line(c, &facts, line, &offset, err, err_len) != 0) {
        gpiod_chip_close(c);
        return NULL;
    }

    cgpio_output *out = calloc(1, sizeof(*out));
    if (out == NULL) {
        set_err(err, err_len, "cannot request GPIO line %s:%s: out of memory.", facts.name,
                line_text);
        gpiod_chip_close(c);
        return NULL;
    }
    out->offset = offset;

#if CGPIO_LIBGPIOD_V1
    struct gpiod_line *l = gpiod_chip_get_line(c, offset);
    if (l == NULL) {
        int e = errno;
        describe_request_failure(e, c, &facts, line, offset, err, err_len);
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
        describe_request_failure(e, c, &facts, line, offset, err, err_len);
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
        describe_request_failure(e, c, &facts, line, offset, err, err_len);
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
