/*
 * Our own declarations of the HIP runtime calls peakbench makes
 * (hip_runtime_api.h of ROCm 5–7), resolved with dlsym from libamdhip64.
 * HIP mirrors the CUDA runtime: the same shapes of calls and the same error
 * numbers where they overlap:
 *
 *   hipSuccess 0, hipErrorOutOfMemory 2, hipErrorInsufficientDriver 35,
 *   hipErrorNoDevice 100, hipErrorInvalidDevice 101
 *   hipMemcpyHostToDevice 1, DeviceToHost 2, DeviceToDevice 3
 *   hipStreamNonBlocking 0x01
 *
 * Device attributes (hipDeviceAttribute_t) were renumbered in ROCm 5.0 (the
 * "CudaCompatibleBegin" layout); these are the values of ROCm 5.0 to 7.x,
 * used only when hipRuntimeGetVersion reports 5 or later:
 *
 *   hipDeviceAttributeClockRate 5 (kHz), L2CacheSize 19,
 *   ComputeCapabilityMajor 23, MemoryBusWidth 59, MemoryClockRate 60 (kHz),
 *   ComputeCapabilityMinor 61, MultiprocessorCount 63
 */
#ifndef PB_VENDOR_HIP_H
#define PB_VENDOR_HIP_H

#include <stddef.h>

typedef int hipError_t;
typedef void *hipStream_t;
typedef void *hipEvent_t;

#define hipSuccess 0
#define hipErrorOutOfMemory 2
#define hipErrorInsufficientDriver 35
#define hipErrorNoDevice 100
#define hipErrorInvalidDevice 101

#define hipMemcpyHostToDevice 1
#define hipMemcpyDeviceToHost 2
#define hipMemcpyDeviceToDevice 3

#define hipStreamNonBlocking 0x01

#define hipDeviceAttributeClockRate 5
#define hipDeviceAttributeL2CacheSize 19
#define hipDeviceAttributeComputeCapabilityMajor 23
#define hipDeviceAttributeMemoryBusWidth 59
#define hipDeviceAttributeMemoryClockRate 60
#define hipDeviceAttributeComputeCapabilityMinor 61
#define hipDeviceAttributeMultiprocessorCount 63

typedef hipError_t (*hipGetDeviceCount_fn)(int *count);
typedef hipError_t (*hipSetDevice_fn)(int device);
typedef hipError_t (*hipDeviceGetAttribute_fn)(int *value, int attr, int device);
typedef hipError_t (*hipDeviceGetName_fn)(char *name, int len, int device);
typedef hipError_t (*hipDeviceGetPCIBusId_fn)(char *id, int len, int device);
typedef hipError_t (*hipRuntimeGetVersion_fn)(int *version);
typedef hipError_t (*hipDriverGetVersion_fn)(int *version);
typedef const char *(*hipGetErrorString_fn)(hipError_t err);
typedef const char *(*hipGetErrorName_fn)(hipError_t err);
typedef hipError_t (*hipGetLastError_fn)(void);
typedef hipError_t (*hipMalloc_fn)(void **ptr, size_t size);
typedef hipError_t (*hipFree_fn)(void *ptr);
typedef hipError_t (*hipMemGetInfo_fn)(size_t *free, size_t *total);
typedef hipError_t (*hipMemcpy_fn)(void *dst, const void *src, size_t count, int kind);
typedef hipError_t (*hipMemcpyAsync_fn)(void *dst, const void *src, size_t count, int kind,
                                        hipStream_t stream);
typedef hipError_t (*hipMemsetAsync_fn)(void *ptr, int value, size_t count, hipStream_t stream);
typedef hipError_t (*hipStreamCreateWithFlags_fn)(hipStream_t *stream, unsigned flags);
typedef hipError_t (*hipStreamDestroy_fn)(hipStream_t stream);
typedef hipError_t (*hipStreamSynchronize_fn)(hipStream_t stream);
typedef hipError_t (*hipEventCreate_fn)(hipEvent_t *event);
typedef hipError_t (*hipEventRecord_fn)(hipEvent_t event, hipStream_t stream);
typedef hipError_t (*hipEventSynchronize_fn)(hipEvent_t event);
typedef hipError_t (*hipEventElapsedTime_fn)(float *ms, hipEvent_t start, hipEvent_t end);
typedef hipError_t (*hipEventDestroy_fn)(hipEvent_t event);

#endif /* PB_VENDOR_HIP_H */
