/*
 * Our own declarations of the cuFFT calls peakbench makes (cufft.h of
 * CUDA 11–13), resolved with dlsym from libcufft. Only the values we use
 * are given; they are part of the stable ABI:
 *
 *   cufftType: CUFFT_R2C 0x2a, CUFFT_C2C 0x29, CUFFT_D2Z 0x6a, CUFFT_Z2Z 0x69
 *   direction: CUFFT_FORWARD -1, CUFFT_INVERSE 1
 *   cufftResult: CUFFT_SUCCESS 0 … CUFFT_NOT_SUPPORTED 16 (below)
 *   cufftGetVersion: major·1000 + minor·100 + patch (CUFFT_VERSION)
 *
 * A plan is an int handle; cufftComplex is interleaved (re, im) float,
 * cufftDoubleComplex the same in double, as our buffers hold them.
 */
#ifndef PB_VENDOR_CUFFT_H
#define PB_VENDOR_CUFFT_H

typedef int cufftHandle;
typedef int cufftResult;

#define CUFFT_SUCCESS 0
#define CUFFT_INVALID_PLAN 1
#define CUFFT_ALLOC_FAILED 2
#define CUFFT_INVALID_TYPE 3
#define CUFFT_INVALID_VALUE 4
#define CUFFT_INTERNAL_ERROR 5
#define CUFFT_EXEC_FAILED 6
#define CUFFT_SETUP_FAILED 7
#define CUFFT_INVALID_SIZE 8
#define CUFFT_UNALIGNED_DATA 9
#define CUFFT_INCOMPLETE_PARAMETER_LIST 10
#define CUFFT_INVALID_DEVICE 11
#define CUFFT_PARSE_ERROR 12
#define CUFFT_NO_WORKSPACE 13
#define CUFFT_NOT_IMPLEMENTED 14
#define CUFFT_LICENSE_ERROR 15
#define CUFFT_NOT_SUPPORTED 16

#define CUFFT_R2C 0x2a
#define CUFFT_C2C 0x29
#define CUFFT_D2Z 0x6a
#define CUFFT_Z2Z 0x69

#define CUFFT_FORWARD (-1)
#define CUFFT_INVERSE 1

typedef cufftResult (*cufftPlanMany_fn)(cufftHandle *plan, int rank, int *n, int *inembed,
                                        int istride, int idist, int *onembed, int ostride,
                                        int odist, int type, int batch);
typedef cufftResult (*cufftSetStream_fn)(cufftHandle plan, void *stream);
typedef cufftResult (*cufftExecC2C_fn)(cufftHandle plan, void *idata, void *odata, int direction);
typedef cufftResult (*cufftExecZ2Z_fn)(cufftHandle plan, void *idata, void *odata, int direction);
typedef cufftResult (*cufftExecR2C_fn)(cufftHandle plan, void *idata, void *odata);
typedef cufftResult (*cufftExecD2Z_fn)(cufftHandle plan, void *idata, void *odata);
typedef cufftResult (*cufftDestroy_fn)(cufftHandle plan);
typedef cufftResult (*cufftGetVersion_fn)(int *version);

#endif /* PB_VENDOR_CUFFT_H */
