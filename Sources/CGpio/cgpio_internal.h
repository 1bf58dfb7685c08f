// cgpio_internal.h: what the parts of CGpio share: the libgpiod version test, chip and line
// lookup, and the error sentences. Not part of the module's public header.
//
// v1's <gpiod.h> defines GPIOD_LINE_BULK_MAX_LINES; v2's does not.

#ifndef CGPIO_INTERNAL_H
#define CGPIO_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE // scandir, versionsort, snprintf/strdup under -std=c11
#endif

#include "cgpio.h"

#include <errno.h>
#include <limits.h>
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

typedef struct gpiod_chip chip_t;

typedef struct {
    char name[64];  // kernel name, "gpiochip0"
    char label[64]; // kernel label, "pinctrl-bcm2711"
    unsigned int num_lines;
} chip_facts;

/// Writes a sentence into err (when there is room).
void cgpio_set_err(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

bool cgpio_is_permission_error(int e);

/// What to do about EACCES/EPERM on a chip.
extern const char *const cgpio_permission_hint;

/// The chip's kernel name, label and line count. 0, or -1 with errno set.
int cgpio_chip_facts(chip_t *chip, chip_facts *facts);

/// A plain decimal number (digits only); *overflow when it does not fit an unsigned int.
bool cgpio_parse_decimal(const char *s, unsigned int *value, bool *overflow);

/// Opens the chip the owner named (name, path, number or label), or NULL with a sentence in
/// err; `line` is only used in messages.
chip_t *cgpio_open_chip(const char *chip, const char *line, chip_facts *facts, char *err, size_t err_len);

/// The offset of the line the owner named (offset or name): 0, or -1 with a sentence in err.
int cgpio_resolve_line(chip_t *chip, const chip_facts *facts, const char *line, unsigned int *offset,
                       char *err, size_t err_len);

/// The chip opened and the line's offset found, the prologue every request and probe shares:
/// the open chip, or NULL (chip closed) with a sentence in err.
chip_t *cgpio_find_line(const char *chip, const char *line, chip_facts *facts, unsigned int *offset,
                        char *err, size_t err_len);

/// The consumer label of whoever holds the line, or "" if the library cannot say.
void cgpio_holder_of(chip_t *chip, unsigned int offset, char *buf, size_t len);

/// Why requesting the line as `what` ("an output", "an input") failed with errno `e`, naming
/// the holder of a busy line.
void cgpio_describe_request_failure(int e, chip_t *chip, const chip_facts *facts, const char *line,
                                    unsigned int offset, const char *what, char *err, size_t err_len);

#endif
