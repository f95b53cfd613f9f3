/*
 * gpu_dtype.c — element types of GPU jobs: sizes and names (the f16, bf16
 * and fp8 conversions, shared with host jobs, are float_formats.c's).
 */
#include "pb_gpu.h"

size_t pb_gpu_dtype_size(pb_gpu_dtype dt)
{
	switch (dt) {
	case PB_GPU_I8:
	case PB_GPU_E4M3:
	case PB_GPU_E5M2:
		return 1;
	case PB_GPU_F16:
	case PB_GPU_BF16:
		return 2;
	case PB_GPU_F32:
	case PB_GPU_TF32:
	case PB_GPU_I32:
		return 4;
	case PB_GPU_F64:
		return 8;
	}
	return 0;
}

const char *pb_gpu_dtype_name(pb_gpu_dtype dt)
{
	switch (dt) {
	case PB_GPU_F16:
		return "f16";
	case PB_GPU_BF16:
		return "bf16";
	case PB_GPU_F32:
		return "f32";
	case PB_GPU_TF32:
		return "tf32";
	case PB_GPU_F64:
		return "f64";
	case PB_GPU_I8:
		return "i8";
	case PB_GPU_I32:
		return "i32";
	case PB_GPU_E4M3:
		return "e4m3";
	case PB_GPU_E5M2:
		return "e5m2";
	}
	return "?";
}
