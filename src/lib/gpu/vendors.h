/* SPDX-License-Identifier: MIT */
/* The GPU vendor backends, one line each, in detection order (a backend is
 * one file, src/lib/gpu/<name>.c, and its line here): with no brand
 * named, the first whose init finds a device serves every device, so none is
 * counted twice.  NVIDIA comes first, as in the Python package; the kernel's
 * DRM fdinfo comes last: it serves only under detection (its brand is
 * GT_GPU_AUTO), where no vendor library sees a device, and never claims
 * NVIDIA's driver.
 *
 * Each line names the gt_gpu_vendor a backend file defines (backend.h);
 * whoever includes this list defines GT_GPU_VENDOR first: backend.h declares
 * them, vendors.c makes the table that everything else iterates over. */
GT_GPU_VENDOR(gt_gpu_nvml)
GT_GPU_VENDOR(gt_gpu_rocm_smi)
GT_GPU_VENDOR(gt_gpu_drm_fdinfo)
