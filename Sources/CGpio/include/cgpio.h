#ifndef CGPIO_H
#define CGPIO_H

#include <stddef.h>
#include <stdint.h>

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

/// One input line reporting its edges (a door's limit switch), held for the owner's life.
typedef struct cgpio_input cgpio_input;

/// One edge of an input: its logical level after the edge (1 = active) and when the kernel saw
/// it (CLOCK_MONOTONIC nanoseconds).
typedef struct {
    int active;
    uint64_t timestamp_ns;
} cgpio_edge;

/// Requests CHIP:LINE as an input that reports both edges, with the kernel inverting the
/// levels when active_low is non-zero (a switch that pulls the line low when the door is there).
/// Chip and line as for cgpio_output_open. On failure returns NULL and writes a sentence into err.
cgpio_input *cgpio_input_open(const char *chip, const char *line, int active_low,
                              const char *consumer, char *err, size_t err_len);

/// The descriptor that polls readable when edges wait to be read.
int cgpio_input_fd(cgpio_input *in);

/// The logical level now (1 = active), or -errno.
int cgpio_input_value(cgpio_input *in);

/// Reads up to `max` waiting edges into `edges`, oldest first, without waiting; returns how
/// many (0 when none wait), or -errno.
int cgpio_input_read_edges(cgpio_input *in, cgpio_edge *edges, int max);

/// Releases the line.
void cgpio_input_close(cgpio_input *in);

/// What `garaged doctor` reports about a line without requesting it.
typedef struct {
    char chip_name[64];   ///< "gpiochip0"
    char chip_label[64];  ///< "pinctrl-bcm2711": says which board this is
    unsigned int offset;  ///< the line's offset on its chip (BCM GPIO number on a Pi's main chip)
    char line_name[64];   ///< "GPIO17", or "" when the chip names none
    int used;             ///< 1 when a process or driver holds the line
    char consumer[64];    ///< who holds it, "" when unknown or free
} cgpio_line_report;

/// Finds CHIP:LINE as cgpio_output_open would and says who holds it, without requesting it:
/// 0 with *out filled, or -1 with a sentence (what failed, what to do) in err.
int cgpio_probe(const char *chip, const char *line, cgpio_line_report *out, char *err, size_t err_len);

/// "v1" or "v2": which libgpiod API this build was compiled against.
const char *cgpio_api_version(void);

#endif
