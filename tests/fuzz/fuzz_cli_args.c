/* SPDX-License-Identifier: MIT */
/* Fuzz target: command-line options and their values.  The input is split
 * at NUL bytes into arguments and given to the CLI's argument parser only
 * (nothing is run; --tconfig, which would read a file named by the input,
 * is left out).  An accepted command line names exactly one thing to track
 * and options the tracker takes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/track_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)
#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"gpu-tracker";
    for (char *p = text; p < text + size && argc < MAX_ARGS; p += strlen(p) + 1)
        if (strncmp(p, "--tconfig", 9) != 0)
            argv[argc++] = p;
    argv[argc] = NULL;
    gt_cli_track_settings s;
    gt_cli_track_settings_init(&s);
    int rc = gt_cli_track_parse(argc, argv, &s);
    if (rc == 0) {
        CHECK(!!s.execute + !!s.cmd + !!s.attach == 1);
        CHECK(!s.cmd || s.cmd[0]);
        CHECK(s.attach >= 0);
        CHECK(isfinite(s.o.sleep_time) && s.o.sleep_time >= 0.001);
        CHECK((unsigned)s.o.ram_unit <= GT_RAM_UNIT_TERABYTES && (unsigned)s.o.gpu_ram_unit <= GT_RAM_UNIT_TERABYTES);
        CHECK((unsigned)s.o.time_unit <= GT_TIME_UNIT_DAYS && (unsigned)s.o.gpu_brand <= GT_GPU_AMD);
        CHECK(s.o.n_expected_cores >= 0);
        CHECK(!s.format || !strcmp(s.format, "text") || !strcmp(s.format, "json"));
    } else {
        CHECK(rc == -1 || rc == GT_EXIT_USAGE);
    }
    gt_cli_track_settings_free(&s);
    free(text);
    return 0;
}
