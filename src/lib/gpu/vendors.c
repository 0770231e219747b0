/* SPDX-License-Identifier: MIT */
/* The vendor table (vendors.h) and what is read from it without opening a
 * GPU: the brands --gb takes, their names and the lists messages give.
 * Brands are listed in the table's order, which is their enumerators' order
 * (test_gpu_brands checks it). */
#include "gpu/backend.h"
#include "gpu/brands.h"

#include <stdio.h>
#include <string.h>

#define GT_GPU_VENDOR(v) &v,
const gt_gpu_vendor *const gt_gpu_vendors[GT_GPU_N_VENDORS] = {
#include "gpu/vendors.h"
};
#undef GT_GPU_VENDOR

const gt_gpu_vendor *gt_gpu_vendor_of(gt_gpu_brand brand)
{
    for (size_t k = 0; brand != GT_GPU_AUTO && k < GT_GPU_N_VENDORS; k++)
        if (gt_gpu_vendors[k]->brand == brand)
            return gt_gpu_vendors[k];
    return NULL;
}

const char *gt_gpu_brand_name(gt_gpu_brand brand)
{
    const gt_gpu_vendor *v = gt_gpu_vendor_of(brand);
    return v ? v->name : NULL;
}

gt_status gt_gpu_brand_parse(const char *s, gt_gpu_brand *out)
{
    if (!s || !out)
        return GT_ERR_INVALID;
    for (size_t k = 0; k < GT_GPU_N_VENDORS; k++)
        if (gt_gpu_vendors[k]->brand != GT_GPU_AUTO && !strcmp(s, gt_gpu_vendors[k]->name)) {
            *out = gt_gpu_vendors[k]->brand;
            return GT_OK;
        }
    return GT_ERR_INVALID;
}

int gt_gpu_brand_list(char *buf, size_t size, const char *last_sep)
{
    size_t n = 0, k = 0, at = 0;
    for (size_t j = 0; j < GT_GPU_N_VENDORS; j++)
        n += gt_gpu_vendors[j]->brand != GT_GPU_AUTO;
    if (size)
        buf[0] = '\0';
    for (size_t j = 0; j < GT_GPU_N_VENDORS; j++) {
        if (gt_gpu_vendors[j]->brand == GT_GPU_AUTO)
            continue;
        const char *sep = k == 0 ? "" : k + 1 == n ? last_sep : ", ";
        k++;
        int w = snprintf(at < size ? buf + at : NULL, at < size ? size - at : 0, "%s'%s'", sep,
                         gt_gpu_vendors[j]->name);
        if (w < 0)
            return -1;
        at += (size_t)w;
    }
    return (int)at;
}
