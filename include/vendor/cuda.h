/*
 * Our own declarations of the CUDA runtime API calls peakbench makes
 * (cuda_runtime_api.h and driver_types.h of CUDA 11–13), resolved with
 * dlsym from libcudart. Only the values we use are given; they are part of
 * the stable ABI (identical in CUDA 11.0 through 13.x):
 *
 *   cudaSuccess 0, cudaErrorMemoryAllocation 2, cudaErrorInsufficientDriver 35,
 *   cudaErrorNoDevice 100, cudaErrorInvalidDevice 101
 *   cudaMemcpyHostToDevice 1, DeviceToHost 2, DeviceToDevice 3
 *   cudaStreamNonBlocking 0x01
 *   cudaDevAttrClockRate 13 (kHz), MultiProcessorCount 16, MemoryClockRate 36
 *   (kHz; the data rate is twice this), GlobalMemoryBusWidth 37 (bits),
 *   L2CacheSize 38 (bytes), ComputeCapabilityMajor 75, Minor 76
 *
 * Structures whose layout changed between versions (cudaDeviceProp) are not
 * declared: the device name is read from the first member of the property
 * block (char name[256] in every version) into storage larger than any
 * version's struct.
 */
#ifndef PB_VENDOR_CUDA_H
#define PB_VENDOR_CUDA_H

#include <stddef.h>

typedef int cudaError_t;
typedef void *cudaStream_t; /* struct CUstream_st * */
typedef void *cudaEvent_t;  /* struct CUevent_st * */

#define cudaSuccess 0
#define cudaErrorMemoryAllocation 2
#define cudaErrorInsufficientDriver 35
#define cudaErrorNoDevice 100
#define cudaErrorInvalidDevice 101

#define cudaMemcpyHostToDevice 1
#define cudaMemcpyDeviceToHost 2
#define cudaMemcpyDeviceToDevice 3

#define cudaStreamNonBlocking 0x01

#define cudaDevAttrClockRate 13
#define cudaDevAttrMultiProcessorCount 16
#define cudaDevAttrMemoryClockRate 36
#define cudaDevAttrGlobalMemoryBusWidth 37
#define cudaDevAttrL2CacheSize 38
#define cudaDevAttrComputeCapabilityMajor 75
#define cudaDevAttrComputeCapabilityMinor 76

typedef cudaError_t (*cudaGetDeviceCount_fn)(int *count);
typedef cudaError_t (*cudaSetDevice_fn)(int device);
typedef cudaError_t (*cudaDeviceGetAttribute_fn)(int *value, int attr, int device);
typedef cudaError_t (*cudaGetDeviceProperties_fn)(void *prop, int device);
typedef cudaError_t (*cudaDeviceGetPCIBusId_fn)(char *id, int len, int device);
typedef cudaError_t (*cudaRuntimeGetVersion_fn)(int *version);
typedef cudaError_t (*cudaDriverGetVersion_fn)(int *version);
typedef const char *(*cudaGetErrorString_fn)(cudaError_t err);
typedef const char *(*cudaGetErrorName_fn)(cudaError_t err);
typedef cudaError_t (*cudaGetLastError_fn)(void);
typedef cudaError_t (*cudaMalloc_fn)(void **ptr, size_t size);
typedef cudaError_t (*cudaFree_fn)(void *ptr);
typedef cudaError_t (*cudaMemGetInfo_fn)(size_t *free, size_t *total);
typedef cudaError_t (*cudaMemcpy_fn)(void *dst, const void *src, size_t count, int kind);
typedef cudaError_t (*cudaMemcpyAsync_fn)(void *dst, const void *src, size_t count, int kind,
                                          cudaStream_t stream);
typedef cudaError_t (*cudaMemsetAsync_fn)(void *ptr, int value, size_t count, cudaStream_t stream);
typedef cudaError_t (*cudaStreamCreateWithFlags_fn)(cudaStream_t *stream, unsigned flags);
typedef cudaError_t (*cudaStreamDestroy_fn)(cudaStream_t stream);
typedef cudaError_t (*cudaStreamSynchronize_fn)(cudaStream_t stream);
typedef cudaError_t (*cudaEventCreate_fn)(cudaEvent_t *event);
typedef cudaError_t (*cudaEventRecord_fn)(cudaEvent_t event, cudaStream_t stream);
typedef cudaError_t (*cudaEventSynchronize_fn)(cudaEvent_t event);
typedef cudaError_t (*cudaEventElapsedTime_fn)(float *ms, cudaEvent_t start, cudaEvent_t end);
typedef cudaError_t (*cudaEventDestroy_fn)(cudaEvent_t event);

#endif /* PB_VENDOR_CUDA_H */
