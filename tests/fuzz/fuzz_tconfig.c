/* SPDX-License-Identifier: MIT */
/* Fuzz target: the --tconfig JSON file.  The CLI's own parser runs on the
 * input as a file; whatever it accepts must be options the tracker takes
 * (the same checks as gt_tracker_new), and nothing is ever run: only the
 * option parser is called. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/track_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("tconfig", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    gt_cli_track_settings s;
    gt_cli_track_settings_init(&s);
    int rc = gt_cli_track_load_tconfig(&s, path);
    if (rc == 0) {
        CHECK(isfinite(s.o.sleep_time) && s.o.sleep_time >= 0.001);
        CHECK((unsigned)s.o.ram_unit <= GT_RAM_UNIT_TERABYTES && (unsigned)s.o.gpu_ram_unit <= GT_RAM_UNIT_TERABYTES);
        CHECK((unsigned)s.o.time_unit <= GT_TIME_UNIT_DAYS && (unsigned)s.o.gpu_brand <= GT_GPU_AMD);
        CHECK(s.o.n_expected_cores >= 0);
        CHECK(!s.o.gpu_uuids || s.o.gpu_uuids[0]);
    } else {
        CHECK(rc == GT_EXIT_USAGE || rc == GT_EXIT_FAILURE);
    }
    gt_cli_track_settings_free(&s);
    close(fd);
    return 0;
}
