/*
 * Our own declarations of the cuDNN calls peakbench makes: the "legacy"
 * tensor-op API (cudnn.h of cuDNN 8; cudnn_graph.h and cudnn_ops.h of
 * cuDNN 9, where libcudnn.so.9 is a shim that loads libcudnn_graph,
 * libcudnn_ops and the engine libraries and exports every symbol),
 * resolved with dlsym. Values (unchanged from cuDNN 7 to 9):
 *
 *   CUDNN_STATUS_SUCCESS 0 (other codes differ between 8 and 9: messages
 *   come from cudnnGetErrorString)
 *   CUDNN_TENSOR_NCHW 0; CUDNN_DATA_FLOAT 0
 *   CUDNN_NOT_PROPAGATE_NAN 0, CUDNN_PROPAGATE_NAN 1
 *   CUDNN_OP_TENSOR_ADD 0, CUDNN_OP_TENSOR_MUL 1
 *   CUDNN_ACTIVATION_SIGMOID 0, RELU 1, TANH 2
 *   CUDNN_SOFTMAX_ACCURATE 1; CUDNN_SOFTMAX_MODE_INSTANCE 0
 *   CUDNN_REDUCE_TENSOR_ADD 0, CUDNN_REDUCE_TENSOR_MAX 3
 *   CUDNN_REDUCE_TENSOR_NO_INDICES 0; CUDNN_32BIT_INDICES 0
 *   libraryPropertyType: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2
 *
 * cudnnGetVersion() is MAJOR·1000 + MINOR·100 + PATCH up to cuDNN 8 and
 * MAJOR·10000 + MINOR·100 + PATCH from cuDNN 9 (cudnn_version.h); we ask
 * cudnnGetProperty instead where it exists.
 */
#ifndef PB_VENDOR_CUDNN_H
#define PB_VENDOR_CUDNN_H

#include <stddef.h>

typedef int cudnnStatus_t;
typedef void *cudnnHandle_t;
typedef void *cudnnTensorDescriptor_t;
typedef void *cudnnOpTensorDescriptor_t;
typedef void *cudnnActivationDescriptor_t;
typedef void *cudnnReduceTensorDescriptor_t;

#define CUDNN_STATUS_SUCCESS 0
#define CUDNN_TENSOR_NCHW 0
#define CUDNN_DATA_FLOAT 0
#define CUDNN_NOT_PROPAGATE_NAN 0
#define CUDNN_PROPAGATE_NAN 1
#define CUDNN_OP_TENSOR_ADD 0
#define CUDNN_OP_TENSOR_MUL 1
#define CUDNN_ACTIVATION_SIGMOID 0
#define CUDNN_ACTIVATION_RELU 1
#define CUDNN_ACTIVATION_TANH 2
#define CUDNN_SOFTMAX_ACCURATE 1
#define CUDNN_SOFTMAX_MODE_INSTANCE 0
#define CUDNN_REDUCE_TENSOR_ADD 0
#define CUDNN_REDUCE_TENSOR_MAX 3
#define CUDNN_REDUCE_TENSOR_NO_INDICES 0
#define CUDNN_32BIT_INDICES 0

#ifndef PB_LIBPROP_MAJOR
#define PB_LIBPROP_MAJOR 0
#define PB_LIBPROP_MINOR 1
#define PB_LIBPROP_PATCH 2
#endif

typedef size_t (*cudnnGetVersion_fn)(void);
/* CUDART_VERSION of the CUDA cuDNN was built for: 1000·major + 10·minor (12040: 12.4). */
typedef size_t (*cudnnGetCudartVersion_fn)(void);
typedef cudnnStatus_t (*cudnnGetProperty_fn)(int type, int *value);
typedef const char *(*cudnnGetErrorString_fn)(cudnnStatus_t status);
typedef cudnnStatus_t (*cudnnCreate_fn)(cudnnHandle_t *handle);
typedef cudnnStatus_t (*cudnnDestroy_fn)(cudnnHandle_t handle);
typedef cudnnStatus_t (*cudnnSetStream_fn)(cudnnHandle_t handle, void *stream);

typedef cudnnStatus_t (*cudnnCreateTensorDescriptor_fn)(cudnnTensorDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetTensor4dDescriptor_fn)(cudnnTensorDescriptor_t desc, int format,
                                                       int dtype, int n, int c, int h, int w);
typedef cudnnStatus_t (*cudnnDestroyTensorDescriptor_fn)(cudnnTensorDescriptor_t desc);

typedef cudnnStatus_t (*cudnnCreateOpTensorDescriptor_fn)(cudnnOpTensorDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetOpTensorDescriptor_fn)(cudnnOpTensorDescriptor_t desc, int op,
                                                       int comp_type, int nan_opt);
typedef cudnnStatus_t (*cudnnDestroyOpTensorDescriptor_fn)(cudnnOpTensorDescriptor_t desc);
typedef cudnnStatus_t (*cudnnOpTensor_fn)(cudnnHandle_t h, cudnnOpTensorDescriptor_t op,
                                          const void *alpha1, cudnnTensorDescriptor_t a_desc,
                                          const void *a, const void *alpha2,
                                          cudnnTensorDescriptor_t b_desc, const void *b,
                                          const void *beta, cudnnTensorDescriptor_t c_desc,
                                          void *c);

typedef cudnnStatus_t (*cudnnCreateActivationDescriptor_fn)(cudnnActivationDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetActivationDescriptor_fn)(cudnnActivationDescriptor_t desc, int mode,
                                                         int nan_opt, double coef);
typedef cudnnStatus_t (*cudnnDestroyActivationDescriptor_fn)(cudnnActivationDescriptor_t desc);
typedef cudnnStatus_t (*cudnnActivationForward_fn)(cudnnHandle_t h,
                                                   cudnnActivationDescriptor_t act,
                                                   const void *alpha,
                                                   cudnnTensorDescriptor_t x_desc, const void *x,
                                                   const void *beta,
                                                   cudnnTensorDescriptor_t y_desc, void *y);

typedef cudnnStatus_t (*cudnnSoftmaxForward_fn)(cudnnHandle_t h, int algo, int mode,
                                                const void *alpha, cudnnTensorDescriptor_t x_desc,
                                                const void *x, const void *beta,
                                                cudnnTensorDescriptor_t y_desc, void *y);

typedef cudnnStatus_t (*cudnnCreateReduceTensorDescriptor_fn)(cudnnReduceTensorDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetReduceTensorDescriptor_fn)(cudnnReduceTensorDescriptor_t desc,
                                                           int op, int comp_type, int nan_opt,
                                                           int indices, int indices_type);
typedef cudnnStatus_t (*cudnnDestroyReduceTensorDescriptor_fn)(cudnnReduceTensorDescriptor_t desc);
typedef cudnnStatus_t (*cudnnGetReductionIndicesSize_fn)(cudnnHandle_t h,
                                                         cudnnReduceTensorDescriptor_t r,
                                                         cudnnTensorDescriptor_t a_desc,
                                                         cudnnTensorDescriptor_t c_desc,
                                                         size_t *size);
typedef cudnnStatus_t (*cudnnGetReductionWorkspaceSize_fn)(cudnnHandle_t h,
                                                           cudnnReduceTensorDescriptor_t r,
                                                           cudnnTensorDescriptor_t a_desc,
                                                           cudnnTensorDescriptor_t c_desc,
                                                           size_t *size);
typedef cudnnStatus_t (*cudnnReduceTensor_fn)(cudnnHandle_t h, cudnnReduceTensorDescriptor_t r,
                                              void *indices, size_t indices_size,
                                              void *workspace, size_t workspace_size,
                                              const void *alpha, cudnnTensorDescriptor_t a_desc,
                                              const void *a, const void *beta,
                                              cudnnTensorDescriptor_t c_desc, void *c);

/*
 * Convolution forward (native/cudnn_conv.c), the legacy API of cuDNN 8 and
 * 9 (cudnn_cnn_infer.h; cudnn_cnn.h in 9). Values, unchanged from cuDNN 7
 * to 9: CUDNN_TENSOR_NHWC 1; CUDNN_CROSS_CORRELATION 1; cudnnMathType_t
 * CUDNN_DEFAULT_MATH 0, TENSOR_OP_MATH 1, TENSOR_OP_MATH_ALLOW_CONVERSION
 * 2, FMA_MATH 3 (8.0 on: no TF32 for f32 data, which CUDNN_DEFAULT_MATH
 * allows on Ampere and later); cudnnConvolutionFwdAlgo_t IMPLICIT_GEMM 0,
 * IMPLICIT_PRECOMP_GEMM 1, GEMM 2, DIRECT 3, FFT 4, FFT_TILING 5,
 * WINOGRAD 6, WINOGRAD_NONFUSED 7 (COUNT 8). Not checked against NVIDIA's
 * headers on this machine (none installed); they are cuDNN's documented
 * values.
 */
typedef void *cudnnFilterDescriptor_t;
typedef void *cudnnConvolutionDescriptor_t;

#define CUDNN_TENSOR_NHWC 1
#define CUDNN_CROSS_CORRELATION 1
#define CUDNN_FMA_MATH 3
#define CUDNN_CONVOLUTION_FWD_ALGO_COUNT 8

typedef struct {
	int algo;
	cudnnStatus_t status;
	float time; /* milliseconds */
	size_t memory;
	int determinism;
	int math_type;
	int reserved[3];
} cudnnConvolutionFwdAlgoPerf_t;

typedef cudnnStatus_t (*cudnnSetTensorNdDescriptorEx_fn)(cudnnTensorDescriptor_t desc, int format,
                                                         int dtype, int nbdims, const int *dims);
typedef cudnnStatus_t (*cudnnCreateFilterDescriptor_fn)(cudnnFilterDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetFilterNdDescriptor_fn)(cudnnFilterDescriptor_t desc, int dtype,
                                                       int format, int nbdims, const int *dims);
typedef cudnnStatus_t (*cudnnDestroyFilterDescriptor_fn)(cudnnFilterDescriptor_t desc);
typedef cudnnStatus_t (*cudnnCreateConvolutionDescriptor_fn)(cudnnConvolutionDescriptor_t *desc);
typedef cudnnStatus_t (*cudnnSetConvolutionNdDescriptor_fn)(cudnnConvolutionDescriptor_t desc,
                                                            int length, const int *pad,
                                                            const int *stride,
                                                            const int *dilation, int mode,
                                                            int compute_type);
typedef cudnnStatus_t (*cudnnSetConvolutionMathType_fn)(cudnnConvolutionDescriptor_t desc,
                                                        int math_type);
typedef cudnnStatus_t (*cudnnDestroyConvolutionDescriptor_fn)(cudnnConvolutionDescriptor_t desc);
typedef cudnnStatus_t (*cudnnGetConvolutionNdForwardOutputDim_fn)(
	cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
	int nbdims, int *dims);
typedef cudnnStatus_t (*cudnnFindConvolutionForwardAlgorithm_fn)(
	cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
	cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, int requested, int *returned,
	cudnnConvolutionFwdAlgoPerf_t *perf);
typedef cudnnStatus_t (*cudnnGetConvolutionForwardAlgorithm_v7_fn)(
	cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
	cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, int requested, int *returned,
	cudnnConvolutionFwdAlgoPerf_t *perf);
typedef cudnnStatus_t (*cudnnGetConvolutionForwardWorkspaceSize_fn)(
	cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
	cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t y, int algo, size_t *bytes);
typedef cudnnStatus_t (*cudnnConvolutionForward_fn)(
	cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t x_desc, const void *x,
	cudnnFilterDescriptor_t w_desc, const void *w, cudnnConvolutionDescriptor_t conv, int algo,
	void *workspace, size_t workspace_bytes, const void *beta, cudnnTensorDescriptor_t y_desc,
	void *y);

#endif /* PB_VENDOR_CUDNN_H */
