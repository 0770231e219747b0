/* SPDX-License-Identifier: MIT */
/* gpu_load MiB SECONDS [COMMAND [ARG...]]: ground truth on a real NVIDIA GPU,
 * with no CUDA toolkit.  Loads the driver library libcuda.so.1 with dlopen,
 * allocates exactly MiB of device memory on device 0 (as CUDA_VISIBLE_DEVICES
 * numbers them), writes all of it, and keeps every multiprocessor busy for
 * SECONDS with a small kernel given as PTX text (the driver compiles PTX
 * itself).  COMMAND, when given, starts right after the allocation and runs
 * beside it; gpu_load waits for it before freeing its memory, so a child and
 * a grandchild of a tracked command can hold GPU memory at the same time.
 *
 * It prints, one line each, "key=value" pairs a script can read: what it
 * allocated, cuMemGetInfo's free memory before and after the allocation and
 * after the kernel, and how long the GPU was busy.  Without a driver it
 * prints why on stderr and exits with status 3; a CUDA call that fails
 * exits 1 naming the call and the driver's error text. */
#include "wl.h"

#include <dlfcn.h>
#include <spawn.h>
#include <stdint.h>

#define USAGE "gpu_load MiB SECONDS [COMMAND [ARG...]]"
#define NO_DRIVER 3

extern char **environ;

/* The driver API's types, as its public reference gives them. */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16

/* Each thread runs ITERS dependent fused multiply-adds and stores the
 * result, so the compiler cannot drop the loop and a launch's length grows
 * with ITERS. */
static const char kernel_ptx[] =
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry spin(.param .u64 out, .param .u32 iters)\n"
    "{\n"
    "    .reg .pred p;\n"
    "    .reg .b32 r<6>;\n"
    "    .reg .f32 f<3>;\n"
    "    .reg .b64 rd<4>;\n"
    "    ld.param.u64 rd1, [out];\n"
    "    ld.param.u32 r1, [iters];\n"
    "    mov.u32 r2, %ctaid.x;\n"
    "    mov.u32 r3, %ntid.x;\n"
    "    mov.u32 r4, %tid.x;\n"
    "    mad.lo.s32 r5, r2, r3, r4;\n"
    "    cvt.rn.f32.u32 f1, r5;\n"
    "    mov.f32 f2, 0f3F800000;\n"
    "    mov.u32 r2, 0;\n"
    "LOOP:\n"
    "    fma.rn.f32 f1, f1, 0f3F7FFFEF, f2;\n"
    "    add.u32 r2, r2, 1;\n"
    "    setp.lt.u32 p, r2, r1;\n"
    "    @p bra LOOP;\n"
    "    cvta.to.global.u64 rd2, rd1;\n"
    "    mul.wide.u32 rd3, r5, 4;\n"
    "    add.u64 rd2, rd2, rd3;\n"
    "    st.global.f32 [rd2], f1;\n"
    "    ret;\n"
    "}\n";

static struct cuda {
    void *lib;
    CUresult (*init)(unsigned);
    CUresult (*driver_version)(int *);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*device_name)(char *, int, CUdevice);
    CUresult (*device_attribute)(int *, int, CUdevice);
    CUresult (*ctx_retain)(CUcontext *, CUdevice);
    CUresult (*ctx_release)(CUdevice);
    CUresult (*ctx_set)(CUcontext);
    CUresult (*ctx_sync)(void);
    CUresult (*mem_info)(size_t *, size_t *);
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*mem_free)(CUdeviceptr);
    CUresult (*memset8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*module_load)(CUmodule *, const void *);
    CUresult (*module_function)(CUfunction *, CUmodule, const char *);
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       CUstream, void **, void **);
    CUresult (*error_string)(CUresult, const char **);
} cu;

/* Exits naming the failed call and the driver's words for its error. */
static void check(CUresult r, const char *call)
{
    if (r == 0)
        return;
    const char *text = NULL;
    if (!cu.error_string || cu.error_string(r, &text) != 0 || !text)
        text = "unknown error";
    fprintf(stderr, "gpu_load: %s failed: %s (CUDA error %d)\n", call, text, r);
    exit(1);
}

/* The first of the names the library exports (versioned names first). */
static void *sym(const char *name, const char *fallback)
{
    void *p = dlsym(cu.lib, name);
    if (!p && fallback)
        p = dlsym(cu.lib, fallback);
    if (!p) {
        fprintf(stderr, "gpu_load: the CUDA driver library lacks %s\n", name);
        exit(NO_DRIVER);
    }
    return p;
}

static void load_driver(void)
{
    if (!(cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "gpu_load: no CUDA driver: %s\n", dlerror());
        exit(NO_DRIVER);
    }
    /* Stored through void ** as POSIX's dlsym page does: C11 has no
     * conversion from an object pointer to a function pointer. */
#define LOAD(field, name, fallback) *(void **)&cu.field = sym(name, fallback)
    LOAD(error_string, "cuGetErrorString", NULL);
    LOAD(init, "cuInit", NULL);
    LOAD(driver_version, "cuDriverGetVersion", NULL);
    LOAD(device_get, "cuDeviceGet", NULL);
    LOAD(device_name, "cuDeviceGetName", NULL);
    LOAD(device_attribute, "cuDeviceGetAttribute", NULL);
    LOAD(ctx_retain, "cuDevicePrimaryCtxRetain", NULL);
    LOAD(ctx_release, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
    LOAD(ctx_set, "cuCtxSetCurrent", NULL);
    LOAD(ctx_sync, "cuCtxSynchronize", NULL);
    LOAD(mem_info, "cuMemGetInfo_v2", "cuMemGetInfo");
    LOAD(mem_alloc, "cuMemAlloc_v2", "cuMemAlloc");
    LOAD(mem_free, "cuMemFree_v2", "cuMemFree");
    LOAD(memset8, "cuMemsetD8_v2", "cuMemsetD8");
    LOAD(module_load, "cuModuleLoadData", NULL);
    LOAD(module_function, "cuModuleGetFunction", NULL);
    LOAD(launch, "cuLaunchKernel", NULL);
#undef LOAD
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mib_of(size_t bytes)
{
    return (double)bytes / (double)WL_MIB;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        wl_usage(USAGE);
    long mib = wl_long(argv[1], 0, 1L << 24, USAGE);
    double secs = wl_seconds(argv[2], USAGE);
    load_driver();
    /* cuInit answers "no device" on a machine with the library but no GPU. */
    CUresult r = cu.init(0);
    if (r != 0) {
        const char *text = NULL;
        cu.error_string(r, &text);
        fprintf(stderr, "gpu_load: no usable CUDA device: cuInit: %s (CUDA error %d)\n", text ? text : "?", r);
        return NO_DRIVER;
    }
    int version = 0, sms = 0;
    CUdevice dev;
    CUcontext ctx;
    char name[128] = "";
    check(cu.driver_version(&version), "cuDriverGetVersion");
    check(cu.device_get(&dev, 0), "cuDeviceGet");
    check(cu.device_name(name, (int)sizeof name, dev), "cuDeviceGetName");
    check(cu.device_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute");
    check(cu.ctx_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cu.ctx_set(ctx), "cuCtxSetCurrent");

    CUmodule mod;
    CUfunction spin;
    check(cu.module_load(&mod, kernel_ptx), "cuModuleLoadData");
    check(cu.module_function(&spin, mod, "spin"), "cuModuleGetFunction");
    unsigned threads = 256, blocks = (unsigned)(sms > 0 ? sms : 1) * 8;
    size_t out_bytes = (size_t)blocks * threads * sizeof(float);

    size_t free0, free1, free2, total;
    check(cu.mem_info(&free0, &total), "cuMemGetInfo");
    /* The kernel's output lives inside the measured allocation when it fits,
     * so what is allocated is exactly MiB. */
    size_t bytes = (size_t)mib * WL_MIB;
    CUdeviceptr buf = 0, out = 0;
    if (bytes)
        check(cu.mem_alloc(&buf, bytes), "cuMemAlloc");
    if (bytes >= out_bytes) {
        out = buf;
    } else {
        check(cu.mem_alloc(&out, out_bytes), "cuMemAlloc");
        bytes += out_bytes;
    }
    if (buf)
        check(cu.memset8(buf, 0x5a, (size_t)mib * WL_MIB), "cuMemsetD8");
    check(cu.ctx_sync(), "cuCtxSynchronize");
    check(cu.mem_info(&free1, &total), "cuMemGetInfo");
    printf("gpu_load pid=%d device=\"%s\" multiprocessors=%d driver_api=%d allocated_mib=%.3f "
           "total_mib=%.1f free_before_mib=%.1f free_after_alloc_mib=%.1f\n",
           (int)getpid(), name, sms, version, mib_of(bytes), mib_of(total), mib_of(free0), mib_of(free1));
    fflush(stdout);

    pid_t child = -1;
    if (argc > 3) {
        int e = posix_spawnp(&child, argv[3], NULL, NULL, argv + 3, environ);
        if (e) {
            errno = e;
            wl_die(argv[3]);
        }
    }

    /* Launches grow until one lasts about 20 ms, so the GPU stays busy
     * with a few launches a second of host work between them. */
    unsigned iters = 1u << 12;
    long launches = 0;
    double t0 = now_s(), end = t0 + secs, kernel_s = 0;
    while (now_s() < end) {
        void *params[] = {&out, &iters};
        double k0 = now_s();
        check(cu.launch(spin, blocks, 1, 1, threads, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel");
        check(cu.ctx_sync(), "cuCtxSynchronize");
        double took = now_s() - k0;
        kernel_s += took;
        launches++;
        if (took < 0.02 && iters < (1u << 30))
            iters *= 2;
    }
    double busy = now_s() - t0;
    check(cu.mem_info(&free2, &total), "cuMemGetInfo");

    int status = 0;
    if (child > 0 && waitpid(child, &status, 0) < 0)
        wl_die("waitpid");
    printf("gpu_load pid=%d busy_s=%.3f kernel_s=%.3f launches=%ld iters=%u free_after_kernel_mib=%.1f\n",
           (int)getpid(), busy, kernel_s, launches, iters, mib_of(free2));
    fflush(stdout);
    if (out != buf)
        check(cu.mem_free(out), "cuMemFree");
    if (buf)
        check(cu.mem_free(buf), "cuMemFree");
    check(cu.ctx_release(dev), "cuDevicePrimaryCtxRelease");
    if (child > 0)
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return 0;
}
