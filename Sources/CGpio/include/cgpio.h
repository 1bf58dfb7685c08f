#ifndef CGPIO_H
#define CGPIO_H

#include <stddef.h>

/// One output line held for the owner's whole life (opaque: v1 and v2 differ underneath).
typedef struct cgpio_output cgpio_output;

/// Requests CHIP:LINE as an output already at its inactive level, in one request, so the
/// relay never twitches while the line is being claimed.
///   chip: a name ("gpiochip0"), a path ("/dev/gpiochip0") or a chip label ("pinctrl-bcm2711").
///   line: a decimal offset ("17") or a line name ("GPIO17").
///   active_low: non-zero when the relay board energises on a low level (the kernel inverts).
///   consumer: the label the kernel shows for the holder (gpioinfo).
/// On failure returns NULL and writes a human sentence (what failed, and why) into err.
cgpio_output *cgpio_output_open(const char *chip, const char *line, int active_low,
                                const char *consumer, char *err, size_t err_len);

/// Sets the logical value (1 = active = relay energised). Returns 0, or -errno.
int cgpio_output_set(cgpio_output *out, int active);

/// Sets the line inactive and releases it.
void cgpio_output_close(cgpio_output *out);

/// "v1" or "v2": which libgpiod API this build was compiled against.
const char *cgpio_api_version(void);

#endif
