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

#endif /* PB_VENDOR_CUDNN_H */
