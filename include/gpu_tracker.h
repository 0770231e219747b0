/* SPDX-License-Identifier: MIT */
/*
 * gpu-tracker: measure the RAM, GPU RAM, CPU, GPU and wall time that a process
 * tree really used.  This is the one public header of libgputracker.
 *
 * Conventions
 *  - Errors, one model: every fallible function returns a gt_status, which
 *    gt_strerror() names.  Where there is more to say, a one-line,
 *    human-readable message of what failed and why is in one place: the
 *    gt_error the caller passes as the last argument (NULL: no message
 *    wanted), written only when the status is not GT_OK.  A handle holds no
 *    message of its own to be asked for later: a failure of a tracker's run
 *    (its sampling thread, its tracking file) is given by the gt_tracker_stop
 *    (or gt_tracker_start) that reports it, and a sub-tracker's first
 *    failed mark by every later mark and by gt_subtracker_status.  Which
 *    functions take err, fixed for each (tests/e2e/header.sh checks these
 *    lists against the declarations):
 *    - err, the caller's gt_error:
 *        gt_tracker_new, gt_tracker_add_static, gt_tracker_start,
 *        gt_tracker_stop, gt_tracker_usage, gt_tracker_usage_new,
 *        gt_tracker_report, gt_tracker_figure,
 *        gt_subtracker_open, gt_subtracker_default_path,
 *        gt_subtracker_default_path_of, gt_subtracker_mark,
 *        gt_subtracker_mark_at, gt_subtracker_status, gt_analyze,
 *        gt_subtrack_calls, gt_subtrack_combine, gt_merge_files, gt_compare,
 *        gt_plot_write, gt_metrics_open.
 *    - none, the status is all there is to say: the parsers and writers,
 *      whose failures are a wrong argument, a failed stream or memory, and
 *      the *_options_init, whose options the operation then explains:
 *        gt_ram_unit_parse, gt_time_unit_parse, gt_energy_unit_parse,
 *        gt_gpu_brand_parse, gt_options_init, gt_analyze_options_init,
 *        gt_merge_options_init, gt_compare_options_init,
 *        gt_plot_options_init, gt_usage_write,
 *        gt_usage_string, gt_results_write, gt_results_string,
 *        gt_merge_write, gt_comparison_write, gt_comparison_string,
 *        gt_metrics_update.
 *    The functions without a status cannot fail, or say so in their value
 *    (NULL, "", 0; see NULL below).
 *  - The library never prints to stdout, never exits, and never installs
 *    signal handlers.  Warnings go through the log callback in gt_options.
 *  - NULL: a NULL handle, or NULL for a pointer argument a function needs,
 *    is GT_ERR_INVALID, with the message in the gt_error (where the
 *    function takes one); an output
 *    pointer (T **out) given is set to NULL first.  A pointer documented as
 *    optional (err, a NULL path meaning the default) keeps its meaning.  A
 *    gt_format that is neither of the two is GT_ERR_INVALID, nothing
 *    written.  Functions without a status do nothing for NULL: *_free(T **)
 *    accept NULL and a pointer to NULL (and set the pointer to NULL),
 *    gt_tracker_set_main_maxrss, gt_subtrack_scope_end;
 *    gt_metrics_address of NULL returns "", gt_tracker_descendants_alive 0.
 *  - The structs a program allocates (gt_options, gt_usage, gt_timepoint)
 *    carry a version, so that a program keeps working with later libraries
 *    of the same major version: see "Struct versions" below.
 */
#ifndef GPU_TRACKER_H
#define GPU_TRACKER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version, in this one place: the Makefile reads it from here for the
 * shared library's file name, gputracker.pc and the Python package's
 * python/gpu_tracker/_version.py.  The soname changes with GT_VERSION_MAJOR
 * only. */
#define GT_VERSION_MAJOR 1
#define GT_VERSION_MINOR 0
#define GT_VERSION_PATCH 0
#define GT_VERSION_STR_(x) #x
#define GT_VERSION_STR(x) GT_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH" of this header; gt_version() gives the library's. */
#define GT_VERSION GT_VERSION_STR(GT_VERSION_MAJOR) "." GT_VERSION_STR(GT_VERSION_MINOR) "." \
    GT_VERSION_STR(GT_VERSION_PATCH)

#if defined(__GNUC__)
#define GT_API __attribute__((visibility("default")))
#else
#define GT_API
#endif

/* The version of the library that is running, "MAJOR.MINOR.PATCH" (a static
 * string): GT_VERSION of the header it was built with, which may differ from
 * the header a program was compiled with. */
GT_API const char *gt_version(void);

typedef enum gt_status {
    GT_OK = 0,
    GT_ERR_INVALID,     /* an argument or option is not valid */
    GT_ERR_STATE,       /* call not allowed in the tracker's current state */
    GT_ERR_IO,          /* a file could not be read or written */
    GT_ERR_EXISTS,      /* a file exists and overwrite was not requested */
    GT_ERR_NOMEM,
    GT_ERR_SYS,         /* a system call failed (message has errno text) */
    GT_ERR_NOPROC,      /* the process to track does not exist */
    GT_ERR_FORMAT,      /* input file content is malformed */
    GT_ERR_GPU          /* GPU selection is invalid (e.g. unknown UUID) */
} gt_status;

/* A short text for each status ("invalid argument", "out of memory", ...),
 * lowercase and without a final period so that it can follow a colon; a
 * static string, never NULL, the same in every release.  A value that is no
 * gt_status gives "unknown status".  The message of a failure, in the
 * caller's gt_error, says more: what failed and why. */
GT_API const char *gt_strerror(gt_status st);

/* The caller's place for a failure's message, the last argument of every
 * function that has one to give (see "Errors" above).  A message longer
 * than msg holds (a long path, say) is cut to end in "...", never in the
 * middle of a UTF-8 character. */
typedef struct gt_error {
    char msg[512];
} gt_error;

typedef enum gt_ram_unit {
    GT_RAM_UNIT_BYTES = 0, GT_RAM_UNIT_KILOBYTES, GT_RAM_UNIT_MEGABYTES, GT_RAM_UNIT_GIGABYTES,
    GT_RAM_UNIT_TERABYTES
} gt_ram_unit;

typedef enum gt_time_unit {
    GT_TIME_UNIT_SECONDS = 0, GT_TIME_UNIT_MINUTES, GT_TIME_UNIT_HOURS, GT_TIME_UNIT_DAYS
} gt_time_unit;

/* A GPU vendor that --gb names; each has one backend (src/lib/gpu/).  A
 * new vendor's enumerator goes at the end: the numbers are the ABI. */
typedef enum gt_gpu_brand {
    GT_GPU_AUTO = 0, GT_GPU_NVIDIA, GT_GPU_AMD
} gt_gpu_brand;

typedef enum gt_format { GT_FORMAT_TEXT = 0, GT_FORMAT_JSON } gt_format;

/* Energy report unit (--eu): "joules", "kilojoules", "watt-hours",
 * "kilowatt-hours".  Power is always in watts. */
typedef enum gt_energy_unit {
    GT_ENERGY_UNIT_JOULES = 0, GT_ENERGY_UNIT_KILOJOULES, GT_ENERGY_UNIT_WATT_HOURS, GT_ENERGY_UNIT_KILOWATT_HOURS
} gt_energy_unit;

/* The units' names before they carried their type's prefix (0.1.0),
 * deprecated: aliases, so that programs written for them build unchanged.
 * A program defines GT_NO_DEPRECATED before including this header to make
 * sure it uses none of them. */
#ifndef GT_NO_DEPRECATED
#define GT_BYTES GT_RAM_UNIT_BYTES
#define GT_KILOBYTES GT_RAM_UNIT_KILOBYTES
#define GT_MEGABYTES GT_RAM_UNIT_MEGABYTES
#define GT_GIGABYTES GT_RAM_UNIT_GIGABYTES
#define GT_TERABYTES GT_RAM_UNIT_TERABYTES
#define GT_SECONDS GT_TIME_UNIT_SECONDS
#define GT_MINUTES GT_TIME_UNIT_MINUTES
#define GT_HOURS GT_TIME_UNIT_HOURS
#define GT_DAYS GT_TIME_UNIT_DAYS
#define GT_JOULES GT_ENERGY_UNIT_JOULES
#define GT_KILOJOULES GT_ENERGY_UNIT_KILOJOULES
#define GT_WATT_HOURS GT_ENERGY_UNIT_WATT_HOURS
#define GT_KILOWATT_HOURS GT_ENERGY_UNIT_KILOWATT_HOURS
#endif
GT_API const char *gt_energy_unit_name(gt_energy_unit u);
GT_API gt_status gt_energy_unit_parse(const char *s, gt_energy_unit *out);

/* Unit names as the Python package spells them ("bytes" ... "terabytes",
 * "seconds" ... "days").  Parsing returns GT_ERR_INVALID for anything else. */
GT_API const char *gt_ram_unit_name(gt_ram_unit u);
GT_API const char *gt_time_unit_name(gt_time_unit u);
GT_API gt_status gt_ram_unit_parse(const char *s, gt_ram_unit *out);
GT_API gt_status gt_time_unit_parse(const char *s, gt_time_unit *out);
GT_API gt_status gt_gpu_brand_parse(const char *s, gt_gpu_brand *out);
/* The name gt_gpu_brand_parse takes for a brand ("nvidia", "amd"); NULL
 * for GT_GPU_AUTO and for a number no backend has.  Brands are numbered
 * from 1 without gaps, so a program lists them by asking 1, 2, ... until
 * NULL. */
GT_API const char *gt_gpu_brand_name(gt_gpu_brand b);

typedef void (*gt_log_fn)(void *ctx, const char *message);

/* ------------------------------------------------------------------------
 * Struct versions.  gt_options, gt_timepoint, gt_usage and the options of
 * each operation (gt_analyze_options, gt_plot_options, gt_merge_options,
 * gt_compare_options) live in the program's memory, so their size is
 * compiled into the program.  Each starts with `unsigned int version`: the
 * GT_STRUCT_VERSION of the header the program was built with, set by its
 * initializer (GT_OPTIONS_INIT or gt_options_init(), GT_TIMEPOINT_INIT,
 * GT_USAGE_INIT, GT_<OP>_OPTIONS_INIT or gt_<op>_options_init()).  The
 * library reads and writes only the fields of that version, gives the
 * program timepoints and usage in that version's layout (a tracker in the
 * version of its gt_options), and refuses version 0 (not initialised),
 * versions newer than its own and versions before the struct existed (3 and
 * below for the operations' options, new in 4) with GT_ERR_INVALID and a
 * message.  So a program built with this header works
 * with every later libgputracker.so of the same major version.
 *
 * Adding a field to one of these structs, the only change they may have:
 *  1. Append it at the end of the struct, under a "Version N" comment; never
 *     inside a nested struct or array, never reordered, resized or removed.
 *     gt_error, gt_subtrack_scope and the nested structs are frozen.
 *  2. Set GT_STRUCT_VERSION to N, once per release: the fields added between
 *     two releases share one number.
 *  3. In src/lib/abi.c, add [N] = GT_END_OF(struct, its new last field) to
 *     that struct's table of sizes.
 *  4. Zero must mean "not set" or "unavailable" (older programs have no such
 *     field, and the library reads it as 0); an options default other
 *     than 0 goes into both forms of the struct's *_INIT (C's and C++'s),
 *     which its *_init() uses too (tests/e2e/header.sh compares them).
 *  5. python/gpu_tracker/_lib.py: STRUCT_VERSION = N, and the field in its
 *     ctypes copy of the struct where it has one (Options, AnalyzeOptions,
 *     CompareOptions).
 * ------------------------------------------------------------------------ */
#define GT_STRUCT_VERSION 4

#define GT_TIMEPOINT_MAX_GPUS 16

/* One selected GPU in a gt_timepoint. */
typedef struct gt_timepoint_gpu {
    char uuid[96];
    int power_valid;
    double power_watts;
    /* The device's cumulative energy counter (NVML: since the driver was
     * loaded; ROCm SMI: its accumulator), joules; it restarts from 0 when the
     * driver reloads. */
    int energy_valid;
    double energy_joules;
} gt_timepoint_gpu;

/* One sample as it is taken, for live displays and exporters.  Base units:
 * bytes, percent of one core (CPU) or of one GPU, seconds.  The *_valid
 * flags say which figures are available; an unavailable percent is NaN. */
typedef struct gt_timepoint {
    /* Version 1.  The tracker's gt_options.version in a timepoint of the
     * library; GT_TIMEPOINT_INIT in one the program fills itself. */
    unsigned int version;
    double timestamp;           /* Unix seconds */
    double elapsed;             /* seconds since gt_tracker_start */
    unsigned long n_samples;    /* samples taken so far, this one included */
    /* Total RSS (private + shared), bytes; system is the machine's used RAM. */
    uint64_t main_ram, descendants_ram, combined_ram, system_ram, system_ram_capacity;
    /* GPU RAM, bytes; gpu_valid is 0 when no GPU is tracked. */
    int gpu_valid;
    uint64_t main_gpu_ram, descendants_gpu_ram, combined_gpu_ram, system_gpu_ram,
        system_gpu_ram_capacity;
    double gpu_sum_percent;     /* summed over the selected GPUs */
    int n_expected_gpus;
    /* SM utilization of the tracked processes, summed over the GPUs, and
     * total power of the selected GPUs; 0 valid flags where not read. */
    int gpu_sm_valid;
    double gpu_sm_main, gpu_sm_descendants, gpu_sm_combined;
    int gpu_power_valid;
    double gpu_power_watts;
    /* Each selected GPU (the first GT_TIMEPOINT_MAX_GPUS of them). */
    size_t n_gpus;
    gt_timepoint_gpu gpus[GT_TIMEPOINT_MAX_GPUS];
    /* CPU percent of one core over the last interval; cpu_valid is 0 for the
     * first sample, which closes no interval (the percents are NaN then). */
    int cpu_valid;
    double cpu_system_sum, cpu_main_sum, cpu_descendants_sum, cpu_combined_sum;
    /* CPU seconds used since the first sample (summed over the intervals). */
    double cpu_main_seconds, cpu_descendants_seconds, cpu_combined_seconds;
    int system_core_count, n_expected_cores;
    int main_n_threads, descendants_n_threads, combined_n_threads;
    /* Version 2. */
    /* 1 where the memory of a process in the set could not be read (another
     * user's process, a setuid program): that RAM figure, and combined, is
     * unavailable, not the 0 or partial sum it holds.  (0 means available,
     * so a timepoint zeroed by older code reads as before.) */
    int main_ram_unavailable, descendants_ram_unavailable, combined_ram_unavailable;
} gt_timepoint;

/* A timepoint with no figures, of this header's version:
 *     gt_timepoint tp = GT_TIMEPOINT_INIT;
 * The initializers of the structs (this one, GT_OPTIONS_INIT,
 * GT_USAGE_INIT and the operations' GT_<OP>_OPTIONS_INIT) compile without
 * a warning under -Wall -Wextra in C99 and later and in C++11 and later
 * (tests/e2e/header.sh builds them with gcc, g++, clang and clang++).  C's are designated initializers; C++ before
 * C++20 has none, and C++20's warn for every field left out, so C++'s are a
 * value-initialized struct (every field 0) with the version and defaults
 * set: the same values, from an expression (a lambda called in place)
 * rather than a constant. */
#ifdef __cplusplus
#define GT_TIMEPOINT_INIT ([] { gt_timepoint gt_tp_{}; gt_tp_.version = GT_STRUCT_VERSION; return gt_tp_; }())
#else
#define GT_TIMEPOINT_INIT { .version = GT_STRUCT_VERSION }
#endif

/* Called on the sampling thread right after each sample; must be quick and
 * must not call back into the tracker. */
typedef void (*gt_timepoint_fn)(void *ctx, const gt_timepoint *tp);

/* The range of gt_options.sleep_time, in seconds, checked by every front
 * end (the command's --st, the SPANK plugin's st=) as by gt_tracker_new:
 * the next wake-up time must fit a time_t, and a day between samples is
 * already more than any use. */
#define GT_SLEEP_TIME_MIN 0.001
#define GT_SLEEP_TIME_MAX 86400.0

typedef struct gt_options {
    /* Version 1. */
    unsigned int version;       /* GT_STRUCT_VERSION; set by the two initializers below */
    double sleep_time;          /* seconds between samples, GT_SLEEP_TIME_MIN to _MAX; default 1.0 */
    gt_ram_unit ram_unit;       /* default gigabytes */
    gt_ram_unit gpu_ram_unit;   /* default gigabytes */
    gt_time_unit time_unit;     /* default hours */
    int n_expected_cores;       /* 0: all cores of the system */
    const char *gpu_uuids;      /* comma-separated; NULL: all GPUs */
    int disable_logs;           /* suppress warnings */
    gt_gpu_brand gpu_brand;     /* default: detect, NVIDIA first */
    const char *tracking_file;  /* .csv or .sqlite; NULL: none */
    int overwrite;              /* allow replacing tracking_file */
    pid_t process_id;           /* 0: the calling process */
    gt_log_fn log;              /* warnings; NULL: written to stderr */
    void *log_ctx;
    /* Root of the process tree whose members count as descendants; 0: the
     * tracked process.  A launcher that is a child subreaper sets it to its
     * own PID so orphaned grandchildren stay tracked; the root itself and
     * its threads are never counted. */
    pid_t tree_root;
    gt_energy_unit energy_unit; /* default joules */
    gt_timepoint_fn on_timepoint; /* NULL: none */
    void *on_timepoint_ctx;

    /* Version 2. */
    /* 1: every tracked process at every sample, in table "processes" of an
     * SQLite tracking_file or in the sibling file "<name>.processes.csv" of a
     * CSV one, and the report's top_processes section (also without a
     * tracking file). */
    int per_process;
    /* 1: every selected GPU at every sample, in table "gpus" or the sibling
     * file "<name>.gpus.csv"; needs tracking_file. */
    int per_gpu;
    /* Share of one core the page-table walks behind the private/shared RSS
     * split may use, above 0 and at most 1; 0: the default, 0.01 (1 %).
     * A larger share keeps the split fresher on large processes; the total
     * RSS is exact at every sample whatever it is. */
    double walk_budget;

    /* Version 3. */
    /* The event backend (kernel events through eBPF), which makes the
     * max_ram total RSS figures exact (see gt_usage.max_ram_method):
     * GT_EVENTS_AUTO (0) uses it where it can be loaded, GT_EVENTS_ON makes
     * gt_tracker_new fail with the reason where it cannot, GT_EVENTS_OFF
     * never loads it. */
    int events;
} gt_options;

enum { GT_EVENTS_AUTO = 0, GT_EVENTS_ON = 1, GT_EVENTS_OFF = 2 };

/* The Python package's defaults, of this header's version:
 *     gt_options opts = GT_OPTIONS_INIT; */
#ifdef __cplusplus
#define GT_OPTIONS_INIT                             \
    ([] {                                           \
        gt_options gt_o_{};                         \
        gt_o_.version = GT_STRUCT_VERSION;          \
        gt_o_.sleep_time = 1.0;                     \
        gt_o_.ram_unit = GT_RAM_UNIT_GIGABYTES;     \
        gt_o_.gpu_ram_unit = GT_RAM_UNIT_GIGABYTES; \
        gt_o_.time_unit = GT_TIME_UNIT_HOURS;       \
        return gt_o_;                               \
    }())
#else
#define GT_OPTIONS_INIT                                                                 \
    { .version = GT_STRUCT_VERSION, .sleep_time = 1.0, .ram_unit = GT_RAM_UNIT_GIGABYTES, \
      .gpu_ram_unit = GT_RAM_UNIT_GIGABYTES, .time_unit = GT_TIME_UNIT_HOURS }
#endif
/* The same defaults, filling the fields of the given struct version (pass
 * GT_STRUCT_VERSION): for a binding that declares the struct itself.  An
 * unknown version (0, or newer than this library's) is GT_ERR_INVALID: then
 * only opts->version is written, and gt_tracker_new says what is wrong. */
GT_API gt_status gt_options_init(gt_options *opts, unsigned int version);

typedef struct gt_rss_values {
    double total_rss, private_rss, shared_rss;
} gt_rss_values;

typedef struct gt_percentages {
    double max_sum_percent, max_hardware_percent;
    double mean_sum_percent, mean_hardware_percent;
} gt_percentages;

/* The tracking result, in the units chosen in gt_options.  Field names and
 * meanings follow the Python package's ResourceUsage data classes; the
 * peak_ram section is gpu-tracker's own.  Kept for the programs that read
 * it; the stable way to read results, which a new figure reaches without a
 * struct version, is the report: gt_tracker_report (the JSON) and
 * gt_tracker_figure (one figure by its path in it). */
typedef struct gt_usage {
    /* Version 1. */
    unsigned int version;   /* GT_USAGE_INIT; the library keeps it */
    struct {
        const char *unit;
        double system_capacity, system;
        gt_rss_values main, descendants, combined;
    } max_ram;
    struct {
        const char *unit;
        double system_capacity, system, main, descendants, combined;
    } max_gpu_ram;
    /* Every percent is -1 (unavailable) when no sample had a CPU figure:
     * a single sample closes no interval. */
    struct {
        int system_core_count, n_expected_cores;
        gt_percentages system, main, descendants, combined;
        int main_n_threads, descendants_n_threads, combined_n_threads;
    } cpu_utilization;
    struct {
        int system_gpu_count, n_expected_gpus;
        gt_percentages gpu_percentages;
    } gpu_utilization;
    struct {
        const char *unit;
        double time;
    } compute_time;
    /* Kernel high-water marks of resident memory (VmHWM): the main
     * process's own peak and the peak of the largest single descendant.
     * Unit: max_ram.unit.  A value < 0 means unavailable.  Each is exact or
     * a lower bound: peak_ram_method (at the end) says which. */
    struct {
        const char *unit;
        double main, largest_descendant;
    } peak_ram;
    unsigned long n_samples;

    /* GPU figures beyond the Python package's (per-process utilization,
     * power, energy counters) are added here by the GPU backends. */
    /* SM utilization of the tracked processes themselves (NVIDIA's
     * per-process samples), summed over the GPUs selected by gpu_uuids;
     * hardware percents divide by n_expected_gpus.  available is 0 (and the
     * report omits the section) where the driver gives no such samples. */
    struct {
        int available;
        gt_percentages main, descendants, combined;
    } gpu_process_utilization;
    /* Power draw of the selected GPUs together, in watts: max and mean over
     * the samples that read it.  available is 0 where no GPU reports it. */
    struct {
        int available;
        const char *unit;   /* "watts" */
        double max, mean;
    } gpu_power;

    /* Energy from the hardware's own counters, in energy.unit; power in
     * watts.  CPU domains come from the kernel's powercap RAPL interface,
     * GPU devices from the vendor's energy counter or, where it has none,
     * from power draw integrated over the samples (source says which).
     * Counter differences, wraparound handled.  A figure < 0 is unavailable.
     * unit NULL: energy was not measured (the report has no Energy section).
     * RAPL counters are read under /sys/class/powercap. */
#define GT_ENERGY_MAX_DOMAINS 32
    struct {
        const char *unit;
        int n_domains;
        struct gt_energy_domain {
            char name[32];      /* "package-0", "package-0:dram", "psys", "gpu-0" */
            /* "rapl"; GPUs: "energy_counter" or "power_integrated" */
            const char *source;
            int gpu;            /* 0: a CPU (RAPL) domain, 1: a GPU device */
            int available;      /* 0: unreadable, see cpu_/gpu_unavailable */
            double energy, mean_power_watts, max_power_watts;
            /* Estimate of the tracked processes' part (see the attribution
             * methods); < 0 when not attributed. */
            double attributed_energy;
        } domains[GT_ENERGY_MAX_DOMAINS];
        /* Why some or all domains are unavailable and how to fix it; ""
         * when every domain was read. */
        char cpu_unavailable[640];
        char gpu_unavailable[256];
        const char *cpu_attribution_method, *gpu_attribution_method;
    } energy;

    /* How each peak_ram figure was obtained: "exact" (the kernel's record of
     * an exited process through taskstats, or the VmHWM of a process alive
     * at the last sample), "exact up to the end of tracking (descendants
     * still running)" for the descendants when some were still running at
     * the last sample (they may grow after it), or "lower bound (sampled)" (the largest VmHWM
     * the samples saw: growth in a process's last interval is missed); NULL
     * where the figure is unavailable. */
    struct {
        const char *main, *largest_descendant;
    } peak_ram_method;
    /* Max RAM figures that could not be read (another user's process, a
     * setuid program) are < 0 in max_ram; ram_unavailable says why ("" when
     * all were read). */
    char ram_unavailable[160];

    /* Version 2. */
    /* With gt_options.per_process: the processes with the largest peak RSS
     * and those with the most CPU seconds, largest first (n of each, at most
     * GT_TOP_PROCESSES).  peak_rss is the kernel's high-water mark of its
     * resident memory, in max_ram.unit: from its exit record where taskstats
     * runs (as peak_ram's), else the largest VmHWM or total RSS a sample
     * read, a lower bound; < 0 where its memory could not be read.
     * cpu_seconds is the CPU time of all its threads as of the last sample
     * that saw it: since its start for a process started after
     * gt_tracker_new, else since the first sample that saw it.  With
     * taskstats a process no sample saw (it lived between two) is ranked
     * too, from its exit records (its threads' CPU time added up).
     * available is 0 without per_process (the report omits the section). */
#define GT_TOP_PROCESSES 5
    struct {
        int available;
        int n;
        struct gt_top_process {
            pid_t pid;
            char command[16];   /* the kernel's comm, control characters as '?' */
            double peak_rss, cpu_seconds;
        } by_peak_ram[GT_TOP_PROCESSES], by_cpu_seconds[GT_TOP_PROCESSES];
    } top_processes;
    /* DRAM energy attributed by memory share, beside the CPU-time share of
     * energy.domains[].attributed_energy: each sample interval's energy of
     * a DRAM domain times the tracked processes' total RSS over the used
     * system RAM at the interval's end (AIPowerMeter's method), summed, in
     * energy.unit.  Parallel to energy.domains; < 0 for a domain that is
     * not DRAM or was not read.  method names it; NULL when energy was not
     * measured, and for a program of version 1. */
    struct {
        const char *method;
        double attributed_energy[GT_ENERGY_MAX_DOMAINS];
    } dram_memory_share;

    /* Version 3. */
    /* How the total_rss figures of max_ram were obtained: "exact (kernel
     * events)" (the event backend's peak of that sum over every change of
     * the kernel's RSS counters, within bound of the kernel's own count),
     * "lower bound (kernel events)" (the backend ran but lost some events
     * or processes, or did not follow descendants running before it loaded:
     * the larger of its peak and the samples'), or "lower
     * bound (sampled)" (the largest sum the samples saw).  private_rss and
     * shared_rss are always sampled.  reason says why the figures are not
     * exact ("" when they are); peak_time is the Unix time of each event
     * peak (0 when sampled); bound, in max_ram.unit, is how far an exact
     * figure may lie from the kernel's true count (the per-CPU batching of
     * its counters, for every process alive at the peak; see
     * docs/measurements.md).  NULL strings for a version 2 tracker. */
    struct {
        const char *main, *descendants, *combined;
        double main_peak_time, descendants_peak_time, combined_peak_time;
        double bound_per_process;
        char reason[192];
        /* The processes the event backend followed: the main process and
         * every process forked in the tree (0 where it did not run). */
        unsigned long processes;
    } max_ram_method;
    /* The cgroup the tracked process runs in, where it is in one of its
     * own: not gpu-tracker's own group (which counts gpu-tracker too), such
     * as a Slurm step's under task/cgroup or the group `gpu-tracker
     * --cgroup` makes.  The group's own counters, read at the end of
     * tracking (while running: now), since the group was made (or its
     * peak reset): memory_peak (v2 memory.peak, v1
     * memory.max_usage_in_bytes) and memory_current count the page cache
     * and kernel memory charged to the group, which is what its limit and
     * the OOM killer compare, so they differ from the RSS figures;
     * memory_limit is the smallest limit of the group and its ancestors
     * (< 0 with limit_none set: no limit anywhere), headroom that limit
     * less the peak; cpu_ns is its processes' CPU time (v2 cpu.stat
     * usage_usec, v1 cpuacct.usage), cpu_seconds the same in seconds.
     * Memory in max_ram.unit.  A figure < 0 is unavailable, and
     * unavailable says why ("" when every figure was read).  path is the
     * memory group's path in its hierarchy, cpu_path the CPU group's ("" where
     * that group is gpu-tracker's own).  available 0: no group of its own
     * (the report omits the section). */
    struct {
        int available;
        int version;            /* 1 or 2: the memory figures' hierarchy */
        char path[512], cpu_path[512];
        double memory_peak, memory_current, memory_limit, memory_headroom;
        int limit_none;
        int64_t cpu_ns;
        double cpu_seconds;
        const char *memory_method;
        char unavailable[320];
    } cgroup;
} gt_usage;

/* An empty usage of this header's version, for gt_tracker_usage to fill
 * (C++: see GT_TIMEPOINT_INIT). */
#ifdef __cplusplus
#define GT_USAGE_INIT ([] { gt_usage gt_u_{}; gt_u_.version = GT_STRUCT_VERSION; return gt_u_; }())
#else
#define GT_USAGE_INIT { .version = GT_STRUCT_VERSION }
#endif

typedef struct gt_tracker gt_tracker;

/* Adds a column to the static data of the tracker's tracking file, after
 * the Python package's and gpu-tracker's own (host, slurm_*): key is 1 to 64
 * lowercase letters, digits or '_' (a letter first) naming no other static
 * column, value text of at most 4096 bytes (NULL: unavailable).  Only before
 * gt_tracker_start (GT_ERR_STATE after).  Without a tracking file it records
 * nothing and returns GT_OK.  GT_ERR_INVALID for a bad key or value, with a
 * message in err. */
GT_API gt_status gt_tracker_add_static(gt_tracker *t, const char *key, const char *value, gt_error *err);

/* Creates a tracker; validates the options (units, sleep time, GPU UUIDs,
 * tracking file).  On failure *out is NULL and err (may be NULL) says why. */
GT_API gt_status gt_tracker_new(const gt_options *opts, gt_tracker **out,
                                gt_error *err);
/* Takes the first sample and starts the background sampling thread.
 * GT_ERR_NOPROC (and the tracker stopped) where the process to track ended
 * before that sample. */
GT_API gt_status gt_tracker_start(gt_tracker *t, gt_error *err);
/* Takes the last sample, stops the thread, finalizes the tracking file, and
 * returns the run's result: its first failure (a sample that could not be
 * taken, a tracking file that could not be written), with its message in
 * err.  Safe from several threads at once: one stop does the work and
 * returns that result; any other, concurrent or later, returns
 * GT_ERR_STATE ("tracking has already stopped") once that stop is
 * complete. */
GT_API gt_status gt_tracker_stop(gt_tracker *t, gt_error *err);
/* Usage so far (works while running too), in out->version's layout (set it
 * with GT_USAGE_INIT).  Fails before start, and for an unknown version. */
GT_API gt_status gt_tracker_usage(gt_tracker *t, gt_usage *out, gt_error *err);
/* The same, allocated by the library, for bindings that cannot size a
 * gt_usage: in the tracker's version (that of its gt_options), released
 * with gt_usage_free().  On failure *out is NULL. */
GT_API gt_status gt_tracker_usage_new(gt_tracker *t, gt_usage **out, gt_error *err);
GT_API void gt_usage_free(gt_usage **u);
/* Reading results, the stable way: the usage so far as the report
 * (GT_FORMAT_TEXT, as the command prints it, or GT_FORMAT_JSON, the
 * Python package's to_json() and gpu-tracker's own sections after it), in
 * a string released with gt_string_free(), with every figure of this
 * library whatever the program's struct version.  A figure added in a
 * later release appears here (and in gt_tracker_figure) without a new
 * struct version; gt_usage keeps the figures it has for the programs that
 * read it, and may not get new ones.  Fails as gt_tracker_usage; on failure
 * *out is NULL. */
GT_API gt_status gt_tracker_report(gt_tracker *t, gt_format fmt, char **out, gt_error *err);
/* One figure of that JSON report, by the path of its keys joined by '.':
 * "max_ram.combined.total_rss", "max_gpu_ram.main",
 * "cpu_utilization.main.mean_sum_percent", "cpu_utilization.main_n_threads",
 * "gpu_utilization.gpu_percentages.max_hardware_percent",
 * "compute_time.time", "peak_ram.main", ... (in the report's units; the
 * units themselves, text, are in the report).  A figure the report gives as
 * unavailable (null) is NaN with GT_OK; true and false are 1 and 0.  A path
 * the report does not have, or one that names text or a section, is
 * GT_ERR_INVALID with a message naming it, and *value NaN.  Each call reads
 * the usage at that moment: while tracking runs, read several figures from
 * one gt_tracker_report instead, or after gt_tracker_stop. */
GT_API gt_status gt_tracker_figure(gt_tracker *t, const char *path, double *value, gt_error *err);
/* Gives the tracker ru_maxrss of the reaped main process (bytes), for
 * launchers that wait for it themselves.  It is not main's own peak: it is
 * the largest of main's peak, the peaks of the children main waited for,
 * and inherited_bytes (the launcher's high-water mark at fork, from which a
 * child's ru_maxrss starts).  So it is only an upper bound: where it is not
 * above the sampled peak, that peak is exact. */
GT_API void gt_tracker_set_main_maxrss(gt_tracker *t, uint64_t maxrss_bytes,
                                       uint64_t inherited_bytes);
/* Descendants of the tracked process still running at the last sample
 * (after gt_tracker_stop: those the main process left behind). */
GT_API size_t gt_tracker_descendants_alive(const gt_tracker *t);
/* Stops a running tracker and releases it.  A tracker never started (the
 * command it was made for could not run) removes the files gt_tracker_new
 * created, which hold no sample: left there, they would refuse the next
 * run with "exists". */
GT_API void gt_tracker_free(gt_tracker **t);

/* Writes usage as the Python package prints it (text) or to_json() (JSON).
 * GT_ERR_INVALID for a usage of an unknown version. */
GT_API gt_status gt_usage_write(const gt_usage *u, gt_format fmt, FILE *out);
/* The same as a NUL-terminated string in *out, released with gt_string_free()
 * (for bindings without a FILE *).  On failure *out is NULL. */
GT_API gt_status gt_usage_string(const gt_usage *u, gt_format fmt, char **out);
GT_API void gt_string_free(char **s);

/* ------------------------------------------------------------------------
 * Sub-tracking: marks of named code blocks, written to a sub-tracking file
 * (CSV or SQLite; columns process_id, code_block_name, position, timestamp;
 * position 0 = start, 1 = stop; timestamp in Unix seconds).
 * ------------------------------------------------------------------------ */
typedef struct gt_subtracker gt_subtracker;

/* Opens (creates) a sub-tracking file; path NULL means the name of
 * gt_subtracker_default_path() in the current directory.  An existing file
 * is GT_ERR_EXISTS unless overwrite.  The file stays open until
 * gt_subtracker_free. */
GT_API gt_status gt_subtracker_open(const char *path, int overwrite,
                                    gt_subtracker **out, gt_error *err);
/* The default sub-tracking file name of this process, into buf (size bytes):
 * "<pid>.csv", the Python package's, or "<host>-<pid>.csv" on a multi-node
 * run (SLURM_JOB_ID set, or GT_SUBTRACK_HOST set to anything but "" or
 * "0"), where process IDs repeat from node to node; a '/' in the host name
 * becomes '_'.  GT_ERR_INVALID when buf is too small, GT_ERR_SYS when the
 * host name cannot be read. */
GT_API gt_status gt_subtracker_default_path(char *buf, size_t size, gt_error *err);
/* The default name for the given process ID (above 0, else GT_ERR_INVALID),
 * for a binding that takes the ID from its own language, as marks take it
 * (gt_subtracker_mark_at): Python's os.getpid(), which its programs' tests
 * replace. */
GT_API gt_status gt_subtracker_default_path_of(long long process_id, char *buf, size_t size, gt_error *err);
/* Writes one mark (position 0 = start, 1 = stop) of the named code block,
 * with the calling process's ID and the current time; the row is in the
 * file when it returns.  Safe to call from several threads at once, and
 * from processes forked after the open (each mark carries the writer's
 * PID; SQLite writers wait for each other up to 10 s).  A file
 * removed (or replaced) while in use is GT_ERR_IO, "... was removed while
 * in use"; a failure to write is kept, and every later mark returns it
 * with its message.  A NULL name or a position other than 0 or 1 is
 * GT_ERR_INVALID for this mark alone. */
GT_API gt_status gt_subtracker_mark(gt_subtracker *s, const char *code_block_name, int position,
                                    gt_error *err);
/* gt_subtracker_mark with the process ID and timestamp (Unix seconds) given
 * by the caller, for a binding whose language keeps its own clock (Python's
 * time.time(), which its programs' tests replace). */
GT_API gt_status gt_subtracker_mark_at(gt_subtracker *s, const char *code_block_name, int position,
                                       long long process_id, double timestamp, gt_error *err);
/* GT_OK, or the first failure of a mark that the file kept (scoped marks
 * return nothing), with its message in err. */
GT_API gt_status gt_subtracker_status(gt_subtracker *s, gt_error *err);
GT_API void gt_subtracker_free(gt_subtracker **s);

/* Scoped marks: a declaration that marks the start where it stands and the
 * stop when the enclosing block is left by any path (end, return, break,
 * goto), through the compiler's cleanup attribute, in C and C++.  The two
 * macros need a compiler that defines __GNUC__ and has that attribute (GCC,
 * Clang, and the compilers compatible with them); with any other they are
 * not defined, and the pair gt_subtrack_scope_begin /
 * gt_subtrack_scope_end does the same where the program calls the end on
 * every path out of the block (in C++, from a destructor).  Failures are
 * seen with gt_subtracker_status.
 *
 *     for (...) {
 *         GT_SUBTRACK_SCOPE(st, "step");   this block; name NULL: "file:line"
 *         ...
 *     }
 *     void load(void)
 *     {
 *         GT_SUBTRACK_FUNCTION(st);        the whole call: "file:load"
 *         ...
 *     }
 *
 * Without the attribute, the first of them by hand:
 *
 *         gt_subtrack_scope sc = gt_subtrack_scope_begin(st, "step", NULL, NULL);
 *         ...
 *         gt_subtrack_scope_end(&sc);
 */
typedef struct gt_subtrack_scope {
    gt_subtracker *s;
    const char *name; /* the code block's name, or its part before ':' */
    const char *attr; /* NULL, or the part after ':' (line or function) */
} gt_subtrack_scope;

/* name NULL: the block is called "file:attr". */
GT_API gt_subtrack_scope gt_subtrack_scope_begin(gt_subtracker *s, const char *name,
                                                 const char *file, const char *attr);
GT_API void gt_subtrack_scope_end(gt_subtrack_scope *scope);

#if defined(__GNUC__)
#define GT_SUBTRACK_STR_(x) #x
#define GT_SUBTRACK_STR(x) GT_SUBTRACK_STR_(x)
#define GT_SUBTRACK_CAT_(a, b) a##b
#define GT_SUBTRACK_CAT(a, b) GT_SUBTRACK_CAT_(a, b)
#define GT_SUBTRACK_SCOPE_(s, name, attr)                                              \
    gt_subtrack_scope GT_SUBTRACK_CAT(gt_subtrack_scope_, __LINE__)                    \
        __attribute__((cleanup(gt_subtrack_scope_end), unused)) =                      \
            gt_subtrack_scope_begin((s), (name), __FILE__, (attr))
#define GT_SUBTRACK_SCOPE(s, name) GT_SUBTRACK_SCOPE_(s, name, GT_SUBTRACK_STR(__LINE__))
#define GT_SUBTRACK_FUNCTION(s) GT_SUBTRACK_SCOPE_(s, NULL, __func__)
#endif /* __GNUC__: without it, gt_subtrack_scope_begin and _end by hand */

/* ------------------------------------------------------------------------
 * Analysis of a tracking file with its sub-tracking file.
 * ------------------------------------------------------------------------ */
typedef struct gt_results gt_results;

/* The options of gt_analyze, initialised with GT_ANALYZE_OPTIONS_INIT or
 * gt_analyze_options_init(); NULL options are the defaults. */
typedef struct gt_analyze_options {
    /* Version 4. */
    unsigned int version;
    /* The marks of the code blocks; NULL (the default): none, the overall
     * statistics and static data of the tracking file alone. */
    const char *sub_tracking_file;
    /* The marks of one host only ("" selects the marks without a host; a
     * host with no marks in the file is GT_ERR_INVALID).  NULL (the
     * default): the marks must all be of one host (a file without a host
     * column is of one); marks of several hosts are GT_ERR_INVALID, since a
     * tracking file holds one node's samples. */
    const char *host;
} gt_analyze_options;

#ifdef __cplusplus
#define GT_ANALYZE_OPTIONS_INIT \
    ([] { gt_analyze_options gt_o_{}; gt_o_.version = GT_STRUCT_VERSION; return gt_o_; }())
#else
#define GT_ANALYZE_OPTIONS_INIT { .version = GT_STRUCT_VERSION }
#endif
/* The defaults of GT_ANALYZE_OPTIONS_INIT in the fields of the given struct
 * version (pass GT_STRUCT_VERSION), for a binding that declares the struct
 * itself; as gt_options_init() for an unknown version. */
GT_API gt_status gt_analyze_options_init(gt_analyze_options *opts, unsigned int version);

/* Statistics of tracking_file, overall and inside the calls of each code
 * block of opts->sub_tracking_file. */
GT_API gt_status gt_analyze(const char *tracking_file, const gt_analyze_options *opts, gt_results **out,
                            gt_error *err);
/* Writes results as `sub-track analyze` prints them (text) or as JSON. */
GT_API gt_status gt_results_write(const gt_results *r, gt_format fmt, FILE *out);
/* The same as a string released with gt_string_free() (see gt_usage_string). */
GT_API gt_status gt_results_string(const gt_results *r, gt_format fmt, char **out);
GT_API void gt_results_free(gt_results **r);
/* The calls of one code block of a sub-tracking file, as the analysis pairs
 * its marks: *calls (2 * *n doubles, start then stop of each call, in the
 * order of host, process ID, then time; marks of every host) released with gt_calls_free().  A block
 * that is not in the file has no calls (*n 0).  GT_ERR_FORMAT for marks
 * that do not pair, GT_ERR_IO for a file that cannot be read. */
GT_API gt_status gt_subtrack_calls(const char *sub_tracking_file, const char *code_block_name,
                                   double **calls, size_t *n, gt_error *err);
GT_API void gt_calls_free(double **calls);
/* Combines sub-tracking files (all CSV or all SQLite, like out_file) into
 * out_file, which must not exist. */
GT_API gt_status gt_subtrack_combine(const char *out_file, const char *const *inputs,
                                     size_t n_inputs, gt_error *err);

/* ------------------------------------------------------------------------
 * Merging the tracking files of one job's nodes (or tasks) into one report.
 * ------------------------------------------------------------------------ */
typedef struct gt_merge gt_merge;

/* The options of gt_merge_files, initialised with GT_MERGE_OPTIONS_INIT or
 * gt_merge_options_init(); NULL options are the defaults. */
typedef struct gt_merge_options {
    /* Version 4. */
    unsigned int version;
    /* The step of the grid the files' samples are aligned on, seconds from
     * the Unix epoch, at least 0.001; default 1.0 (the command's --align). */
    double align_seconds;
} gt_merge_options;

#ifdef __cplusplus
#define GT_MERGE_OPTIONS_INIT              \
    ([] {                                  \
        gt_merge_options gt_o_{};          \
        gt_o_.version = GT_STRUCT_VERSION; \
        gt_o_.align_seconds = 1.0;         \
        return gt_o_;                      \
    }())
#else
#define GT_MERGE_OPTIONS_INIT { .version = GT_STRUCT_VERSION, .align_seconds = 1.0 }
#endif
/* The defaults of GT_MERGE_OPTIONS_INIT, as gt_analyze_options_init(). */
GT_API gt_status gt_merge_options_init(gt_merge_options *opts, unsigned int version);

/* Reads the tracking files (CSV or SQLite, gpu-tracker's or the Python
 * package's) one at a time and reports each file's figures and the job's:
 * peaks of the sums across files at one time, on a grid of
 * opts->align_seconds steps (in each step a file counts with the largest
 * value it sampled there, or its last value before), and the sums of CPU
 * seconds and energy.  RAM figures are in the first file's units.  Each
 * path counts as given (the command leaves out a file given twice).  On
 * failure *out is NULL and err names the file (GT_ERR_IO, GT_ERR_FORMAT:
 * not a tracking file, such as a side file of --per-process, or samples
 * out of order or out of range, with the sample and column;
 * GT_ERR_INVALID for n == 0 or align_seconds below 0.001; GT_ERR_NOMEM). */
GT_API gt_status gt_merge_files(const char *const *paths, size_t n, const gt_merge_options *opts,
                                gt_merge **out, gt_error *err);
/* Writes the report as text or JSON (GT_ERR_IO when out fails). */
GT_API gt_status gt_merge_write(const gt_merge *m, gt_format fmt, FILE *out);
GT_API void gt_merge_free(gt_merge **m);

/* ------------------------------------------------------------------------
 * Comparison of sessions from the JSON results files `analyze` writes.
 * ------------------------------------------------------------------------ */
typedef struct gt_comparison gt_comparison;

/* The options of gt_compare, initialised with GT_COMPARE_OPTIONS_INIT or
 * gt_compare_options_init(); NULL options are the defaults. */
typedef struct gt_compare_options {
    /* Version 4. */
    unsigned int version;
    /* "min", "max", "mean" or "std"; NULL (the default): "mean". */
    const char *statistic;
    /* Warnings (code blocks matched despite differing line numbers), with
     * log_ctx; NULL (the default): written to stderr. */
    gt_log_fn log;
    void *log_ctx;
} gt_compare_options;

#ifdef __cplusplus
#define GT_COMPARE_OPTIONS_INIT \
    ([] { gt_compare_options gt_o_{}; gt_o_.version = GT_STRUCT_VERSION; return gt_o_; }())
#else
#define GT_COMPARE_OPTIONS_INIT { .version = GT_STRUCT_VERSION }
#endif
/* The defaults of GT_COMPARE_OPTIONS_INIT, as gt_analyze_options_init(). */
GT_API gt_status gt_compare_options_init(gt_compare_options *opts, unsigned int version);

/* names[i] labels the session whose results JSON is files[i].  On failure
 * *out is NULL and err says which file or code block is wrong. */
GT_API gt_status gt_compare(const char *const *names, const char *const *files, size_t n,
                            const gt_compare_options *opts, gt_comparison **out, gt_error *err);
GT_API gt_status gt_comparison_write(const gt_comparison *c, gt_format fmt, FILE *out);
/* The same as a string released with gt_string_free() (see gt_usage_string). */
GT_API gt_status gt_comparison_string(const gt_comparison *c, gt_format fmt, char **out);
GT_API void gt_comparison_free(gt_comparison **c);

/* ------------------------------------------------------------------------
 * Plots: timelines of a tracking file as a self-contained page.
 * ------------------------------------------------------------------------ */

/* The options of gt_plot_write, initialised with GT_PLOT_OPTIONS_INIT or
 * gt_plot_options_init(); NULL options are the defaults. */
typedef struct gt_plot_options {
    /* Version 4. */
    unsigned int version;
    /* Its code blocks are drawn as labelled spans; NULL (the default): none. */
    const char *sub_tracking_file;
    /* The spans of one host's marks only ("" selects the marks written
     * without a host; a host with no marks in the file is GT_ERR_INVALID,
     * naming the file's hosts).  NULL (the default): a sub-tracking file
     * with marks of several hosts is refused. */
    const char *host;
} gt_plot_options;

#ifdef __cplusplus
#define GT_PLOT_OPTIONS_INIT \
    ([] { gt_plot_options gt_o_{}; gt_o_.version = GT_STRUCT_VERSION; return gt_o_; }())
#else
#define GT_PLOT_OPTIONS_INIT { .version = GT_STRUCT_VERSION }
#endif
/* The defaults of GT_PLOT_OPTIONS_INIT, as gt_analyze_options_init(). */
GT_API gt_status gt_plot_options_init(gt_plot_options *opts, unsigned int version);

/* Draws the tracking file (CSV or SQLite) as charts of RAM, GPU RAM, CPU and
 * GPU utilization over time into out_file: an HTML page (".html") or an SVG
 * image (".svg"), written whole or not at all.  Long files are downsampled
 * for drawing, keeping each pixel's smallest and largest value.
 * GT_ERR_INVALID for another extension, GT_ERR_IO / GT_ERR_FORMAT for files
 * that cannot be read or are malformed. */
GT_API gt_status gt_plot_write(const char *tracking_file, const char *out_file, const gt_plot_options *opts,
                               gt_error *err);

/* ------------------------------------------------------------------------
 * Metrics endpoint: the latest timepoint served over HTTP in the Prometheus
 * text exposition format (or OpenMetrics when the scraper asks for it).
 * ------------------------------------------------------------------------ */
typedef struct gt_metrics gt_metrics;

/* Listens on address "HOST:PORT", ":PORT" or "PORT" (host: loopback unless
 * given; "[::1]:PORT" for IPv6; port 0: any free port) and serves GET
 * /metrics (and /) on a thread of its own, up to 64 connections at once,
 * each with 2 s for its whole exchange; with all 64 taken, a new connection
 * evicts a stalled one, so no number of stalled clients delays a scrape.  A
 * port in use is GT_ERR_SYS with a message naming the address. */
GT_API gt_status gt_metrics_open(const char *address, gt_metrics **out, gt_error *err);
/* The address actually bound, "HOST:PORT" (IPv6 hosts in brackets). */
GT_API const char *gt_metrics_address(const gt_metrics *m);
/* Publishes tp as the current values; safe from any thread.  Meant to be
 * called from a gt_timepoint_fn.  GT_ERR_INVALID (and nothing published)
 * for a timepoint of an unknown version. */
GT_API gt_status gt_metrics_update(gt_metrics *m, const gt_timepoint *tp);
/* Stops serving and closes the sockets, at once: unfinished exchanges are
 * dropped, never waited for.  NULL-safe. */
GT_API void gt_metrics_free(gt_metrics **m);

#ifdef __cplusplus
}
#endif
#endif
