/*
 * fake_sublib.c — a companion library (the fake libcublasLt.so.12, or the
 * fake cuDNN 9 sub-library libcudnn_ops.so.9), which the fake main library
 * needs by soname without a run path (linked --no-as-needed, using none of
 * its symbols): the main library loads only if the loader has loaded the
 * companion from the same folder first, as it must.
 */
#define EXPORT __attribute__((visibility("default")))

EXPORT int cublasLtGetVersion(void) { return 120405; }
EXPORT int pbfake_cudnn_ops_version(void) { return 90100; }
