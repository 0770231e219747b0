/* SPDX-License-Identifier: MIT */
/* The ROCm SMI types, constants and functions gpu-tracker uses, spelled as
 * in AMD's rocm_smi.h: one declaration for the backend (rocm_smi.c, which
 * resolves the functions with dlsym and never links them) and the fake
 * library (tests/fakes/rocm_smi.c, which defines them), so the two cannot
 * drift.  tests/e2e/gpu_decl.sh compiles every declaration here beside
 * AMD's own header (Debian's librocm-smi-dev, ROCm 5.2) and checks sizes,
 * field offsets, constant values and each function's argument types at
 * compile time. */
#ifndef GT_GPU_ROCM_SMI_DECL_H
#define GT_GPU_ROCM_SMI_DECL_H
#include <stdint.h>

/* Enums in rocm_smi.h with no negative value (RSMI_STATUS_UNKNOWN_ERROR is
 * 0xFFFFFFFF): unsigned int for gcc and clang, which the check confirms. */
typedef unsigned int rsmi_status_t;
typedef unsigned int rsmi_memory_type_t;
enum {
    RSMI_STATUS_SUCCESS = 0,
    RSMI_STATUS_INVALID_ARGS = 1,
    RSMI_STATUS_NOT_SUPPORTED = 2,
    RSMI_STATUS_PERMISSION = 4,
    RSMI_STATUS_INIT_ERROR = 8,
    RSMI_STATUS_NOT_FOUND = 10,
    RSMI_STATUS_INSUFFICIENT_SIZE = 11,
};
enum { RSMI_MEM_TYPE_VRAM = 0 };

typedef struct {
    uint32_t process_id;
    uint32_t pasid;
    uint64_t vram_usage;
    uint64_t sdma_usage;      /* microseconds */
    uint32_t cu_occupancy;    /* percent */
} rsmi_process_info_t;

rsmi_status_t rsmi_init(uint64_t init_flags);
rsmi_status_t rsmi_shut_down(void);
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **status_string);
rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices);
rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv_ind, uint64_t *id);
rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t *total);
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, rsmi_memory_type_t mem_type, uint64_t *used);
rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t *busy_percent);
rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *power);
rsmi_status_t rsmi_dev_energy_count_get(uint32_t dv_ind, uint64_t *power, float *counter_resolution,
                                        uint64_t *timestamp);
rsmi_status_t rsmi_compute_process_info_get(rsmi_process_info_t *procs, uint32_t *num_items);
rsmi_status_t rsmi_compute_process_info_by_pid_get(uint32_t pid, rsmi_process_info_t *proc);
#endif
