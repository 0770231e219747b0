/* Placeholder until the vendor backends land: no GPU is ever found. */
#include "gpu/gpu.h"

#include <stdlib.h>
#include <string.h>

struct gt_gpu {
    int unused;
};

gt_status gt_gpu_open(gt_gpu_brand brand, const char *uuids, gt_log_fn log,
                      void *log_ctx, int disable_logs, gt_gpu **out, gt_error *err)
{
    (void)brand;
    (void)uuids;
    (void)err;
    *out = calloc(1, sizeof **out);
    if (!*out)
        return GT_ERR_NOMEM;
    if (!disable_logs && log)
        log(log_ctx, "Neither the nvidia-smi command nor the amd-smi command is "
                     "installed. The GPU RAM and GPU utilization values will remain 0.0.");
    return GT_OK;
}

int gt_gpu_count(const gt_gpu *g) { (void)g; return 0; }
int gt_gpu_expected(const gt_gpu *g) { (void)g; return 0; }
uint64_t gt_gpu_capacity(const gt_gpu *g) { (void)g; return 0; }

void gt_gpu_sample(gt_gpu *g, const gt_pidset *pids, gt_gpu_reading *out)
{
    (void)g;
    (void)pids;
    memset(out, 0, sizeof *out);
}

void gt_gpu_close(gt_gpu **g)
{
    if (g) {
        free(*g);
        *g = NULL;
    }
}
