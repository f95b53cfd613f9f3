/*
 * fake_sublib.c — a companion library (the fake cuDNN 9 sub-libraries, such
 * as libcudnn_ops.so.9, and cuDNN 8's), which the fake main library
 * needs by soname without a run path (linked --no-as-needed, using none of
 * its symbols): the main library loads only if the loader has loaded the
 * companion from the same folder first, as it must.
 */
#define EXPORT __attribute__((visibility("default")))

EXPORT int pbfake_cudnn_ops_version(void) { return 90100; }
