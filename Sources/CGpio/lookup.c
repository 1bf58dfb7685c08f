// lookup.c: finding a chip and a line from what the owner typed (a chip name, path, number or
// label; a line offset or name), and wording every failure as a sentence that says what to do.
// Shared by the output (relay, warning, light) and input (position switch) requests, and by
// the libgpiod v1 and v2 builds.

#include "cgpio_internal.h"

#include <dirent.h>
#include <stdarg.h>

// ---------------------------------------------------------------------------------------------
// Errors

void cgpio_set_err(char *err, size_t err_len, const char *fmt, ...) {
    if (err == NULL || err_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

bool cgpio_is_permission_error(int e) { return e == EACCES || e == EPERM; }

const char *const cgpio_permission_hint =
    "add the user to group gpio (sudo usermod -aG gpio USER, then log in again) or run as root";

// ---------------------------------------------------------------------------------------------
// The few libgpiod calls that differ between v1 and v2 for chips.


// 0 on success, -1 with errno set.
int cgpio_chip_facts(chip_t *chip, chip_facts *facts) {
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
bool cgpio_parse_decimal(const char *s, unsigned int *value, bool *overflow) {
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

static int cgpio_gpiochip_entry(const struct dirent *d) {
    return strncmp(d->d_name, "gpiochip", 8) == 0;
}

// Returns an open chip, or NULL with a sentence in err. `line` is only used in messages.
chip_t *cgpio_open_chip(const char *chip, const char *line, chip_facts *facts, char *err,
                         size_t err_len) {
    if (chip == NULL || *chip == '\0') {
        cgpio_set_err(err, err_len,
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
                cgpio_set_err(err, err_len,
                        "cannot request GPIO line %s: there is no GPIO chip device %s (%s); "
                        "see gpiodetect for the chips this system has.",
                        line, chip, strerror(e));
            else if (cgpio_is_permission_error(e))
                cgpio_set_err(err, err_len,
                        "cannot request GPIO line %s: opening GPIO chip %s failed (%s); %s.", line,
                        chip, strerror(e), cgpio_permission_hint);
            else if (e == ENOTTY || e == ENODEV)
                cgpio_set_err(err, err_len,
                        "cannot request GPIO line %s: %s is not a GPIO chip character device "
                        "(%s); see gpiodetect.",
                        line, chip, strerror(e));
            else
                cgpio_set_err(err, err_len,
                        "cannot request GPIO line %s: opening GPIO chip %s failed (%s).", line,
                        chip, strerror(e));
            return NULL;
        }
        if (cgpio_chip_facts(c, facts) != 0) {
            int e = errno;
            cgpio_set_err(err, err_len,
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
    if (cgpio_parse_decimal(chip, &number, &overflow) && !overflow)
        snprintf(path, sizeof(path), "/dev/gpiochip%u", number);
    else
        snprintf(path, sizeof(path), "/dev/%s", chip);

    int direct_errno = 0;
    chip_t *c = gpiod_chip_open(path);
    if (c != NULL) {
        if (cgpio_chip_facts(c, facts) == 0)
            return c;
        direct_errno = errno;
        gpiod_chip_close(c);
    } else {
        direct_errno = errno;
    }

    // Not openable under that name: try it as a label on every /dev/gpiochip*.
    struct dirent **entries = NULL;
    int n = scandir("/dev", &entries, cgpio_gpiochip_entry, versionsort);
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
                if (cgpio_chip_facts(cc, facts) == 0 && strcmp(facts->label, chip) == 0)
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
        if (cgpio_is_permission_error(direct_errno))
            cgpio_set_err(err, err_len,
                    "cannot request GPIO line %s: opening GPIO chip %s failed (%s); %s.", line,
                    path, strerror(direct_errno), cgpio_permission_hint);
        else if (direct_errno == ENOTTY || direct_errno == ENODEV)
            cgpio_set_err(err, err_len,
                    "cannot request GPIO line %s: %s is not a GPIO chip character device (%s) "
                    "and no GPIO chip is labelled \"%s\"; see gpiodetect.",
                    line, path, strerror(direct_errno), chip);
        else
            cgpio_set_err(err, err_len,
                    "cannot request GPIO line %s: opening GPIO chip %s failed (%s).", line, path,
                    strerror(direct_errno));
    } else if (unopenable > 0 && cgpio_is_permission_error(unopenable_errno)) {
        cgpio_set_err(err, err_len,
                "cannot request GPIO line %s: no GPIO chip named or labelled \"%s\" could be "
                "opened (%d chip(s) such as %s refused with: %s); %s.",
                line, chip, unopenable, first_unopenable, strerror(unopenable_errno),
                cgpio_permission_hint);
    } else if (n <= 0 || (scanned == 0 && unopenable == 0)) {
        cgpio_set_err(err, err_len,
                "cannot request GPIO line %s: no GPIO chip named or labelled \"%s\" (%s: %s, and "
                "this system has no /dev/gpiochip* devices at all); see gpiodetect.",
                line, chip, path, strerror(ENOENT));
    } else {
        cgpio_set_err(err, err_len,
                "cannot request GPIO line %s: no GPIO chip named or labelled \"%s\" (%s: %s, and "
                "none of the %d chip(s) in /dev has that label); see gpiodetect.",
                line, chip, path, strerror(ENOENT), scanned);
    }
    return NULL;
}

// ---------------------------------------------------------------------------------------------
// Finding the line: a decimal offset, or a line name.

// Returns 0 and sets *offset, or -1 with a sentence in err.
int cgpio_resolve_line(chip_t *chip, const chip_facts *facts, const char *line,
                        unsigned int *offset, char *err, size_t err_len) {
    if (line == NULL || *line == '\0') {
        cgpio_set_err(err, err_len,
                "cannot request a line on GPIO chip %s [%s]: no line given (want an offset like "
                "17 or a line name like GPIO17; see gpioinfo %s).",
                facts->name, facts->label, facts->name);
        return -1;
    }

    unsigned int value;
    bool overflow;
    if (cgpio_parse_decimal(line, &value, &overflow)) {
        if (overflow || value >= facts->num_lines) {
            cgpio_set_err(err, err_len,
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
            cgpio_set_err(err, err_len,
                    "cannot request GPIO line %s:%s: there is no line named \"%s\" on chip %s "
                    "[%s]; see gpioinfo %s for its line names and offsets.",
                    facts->name, line, line, facts->name, facts->label, facts->name);
        else
            cgpio_set_err(err, err_len,
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
void cgpio_holder_of(chip_t *chip, unsigned int offset, char *buf, size_t len) {
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

void cgpio_describe_request_failure(int e, chip_t *chip, const chip_facts *facts,
                                    const char *line, unsigned int offset, const char *what,
                                    char *err, size_t err_len) {
    // "gpiochip0:17" or "gpiochip0:17 (GPIO17)" when the caller used a name.
    char where[256];
    unsigned int parsed;
    bool overflow;
    if (cgpio_parse_decimal(line, &parsed, &overflow))
        snprintf(where, sizeof(where), "%s:%u", facts->name, offset);
    else
        snprintf(where, sizeof(where), "%s:%u (\"%s\")", facts->name, offset, line);

    if (e == EBUSY) {
        char holder[64];
        cgpio_holder_of(chip, offset, holder, sizeof(holder));
        if (strcmp(holder, "sysfs") == 0)
            cgpio_set_err(err, err_len,
                    "cannot request GPIO line %s as %s: the line is exported through the "
                    "legacy /sys/class/gpio interface, consumer \"sysfs\" (%s); unexport it "
                    "(echo N > /sys/class/gpio/unexport) and see gpioinfo %s.",
                    where, what, strerror(e), facts->name);
        else if (holder[0] != '\0')
            cgpio_set_err(err, err_len,
                    "cannot request GPIO line %s as %s: the line is already in use by "
                    "another process or driver, consumer \"%s\" (%s); see gpioinfo %s.",
                    where, what, holder, strerror(e), facts->name);
        else
            cgpio_set_err(err, err_len,
                    "cannot request GPIO line %s as %s: the line is already in use by "
                    "another process or driver (%s); see gpioinfo %s.",
                    where, what, strerror(e), facts->name);
    } else if (cgpio_is_permission_error(e)) {
        cgpio_set_err(err, err_len, "cannot request GPIO line %s as %s (%s); %s.", where, what,
                strerror(e), cgpio_permission_hint);
    } else {
        cgpio_set_err(err, err_len, "cannot request GPIO line %s [%s] as %s (%s).", where,
                facts->label, what, strerror(e));
    }
}


chip_t *cgpio_find_line(const char *chip, const char *line, chip_facts *facts, unsigned int *offset,
                        char *err, size_t err_len) {
    const char *line_text = (line != NULL && *line != '\0') ? line : "(none)";
    chip_t *c = cgpio_open_chip(chip, line_text, facts, err, err_len);
    if (c == NULL)
        return NULL;
    if (cgpio_resolve_line(c, facts, line, offset, err, err_len) != 0) {
        gpiod_chip_close(c);
        return NULL;
    }
    return c;
}
