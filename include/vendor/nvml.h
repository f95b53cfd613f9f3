/*
 * Our own declarations of the NVML calls peakbench makes (nvml.h), resolved
 * with dlsym from libnvidia-ml.so.1, which the NVIDIA driver installs.
 *
 *   NVML_SUCCESS 0
 *   nvmlClockType_t: NVML_CLOCK_GRAPHICS 0, NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2
 *   NVML_TEMPERATURE_GPU 0
 *   clocks event ("throttle") reasons, a bit mask:
 *     GpuIdle 0x1, ApplicationsClocksSetting 0x2, SwPowerCap 0x4,
 *     HwSlowdown 0x8, SyncBoost 0x10, SwThermalSlowdown 0x20,
 *     HwThermalSlowdown 0x40, HwPowerBrakeSlowdown 0x80,
 *     DisplayClockSetting 0x100
 *
 * nvmlDeviceGetTemperatureV (NVML 12.9+; the old nvmlDeviceGetTemperature is
 * deprecated in NVML 13) takes a versioned struct, nvmlTemperature_v1_t:
 * unsigned version, nvmlTemperatureSensors_t sensorType (an enum), int
 * temperature; 12 bytes, temperature at offset 8. Its version is
 * NVML_STRUCT_VERSION(Temperature, 1) = sizeof | 1 << 24 = 0x0100000c; a
 * wrong one is answered NVML_ERROR_ARGUMENT_VERSION_MISMATCH (25).
 *
 * nvmlDeviceGetCurrentClocksEventReasons (driver 535+) replaced
 * nvmlDeviceGetCurrentClocksThrottleReasons (same signature and bits);
 * whichever the library exports is used. Devices are looked up by PCI bus
 * id, because NVML numbers devices in PCI order while the CUDA runtime puts
 * the fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID.
 */
#ifndef PB_VENDOR_NVML_H
#define PB_VENDOR_NVML_H

typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;

#define NVML_SUCCESS 0
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0

#define PB_NVML_REASON_GPU_IDLE 0x1ULL
#define PB_NVML_REASON_APP_CLOCKS 0x2ULL
#define PB_NVML_REASON_SW_POWER_CAP 0x4ULL
#define PB_NVML_REASON_HW_SLOWDOWN 0x8ULL
#define PB_NVML_REASON_SYNC_BOOST 0x10ULL
#define PB_NVML_REASON_SW_THERMAL 0x20ULL
#define PB_NVML_REASON_HW_THERMAL 0x40ULL
#define PB_NVML_REASON_HW_POWER_BRAKE 0x80ULL
#define PB_NVML_REASON_DISPLAY_CLOCKS 0x100ULL

typedef nvmlReturn_t (*nvmlInit_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef const char *(*nvmlErrorString_fn)(nvmlReturn_t r);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByPciBusId_fn)(const char *bus_id, nvmlDevice_t *dev);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t dev, int type, unsigned *mhz);
typedef nvmlReturn_t (*nvmlDeviceGetMaxClockInfo_fn)(nvmlDevice_t dev, int type, unsigned *mhz);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t dev, int sensor, unsigned *c);

typedef struct nvmlTemperature_v1_t {
	unsigned version;
	int sensorType;
	int temperature;
} nvmlTemperature_v1_t;
#define nvmlTemperature_v1 ((unsigned)(sizeof(nvmlTemperature_v1_t) | (1u << 24)))
typedef nvmlReturn_t (*nvmlDeviceGetTemperatureV_fn)(nvmlDevice_t dev, nvmlTemperature_v1_t *t);
typedef nvmlReturn_t (*nvmlDeviceGetPowerUsage_fn)(nvmlDevice_t dev, unsigned *mw);
typedef nvmlReturn_t (*nvmlDeviceGetReasons_fn)(nvmlDevice_t dev, unsigned long long *reasons);
typedef nvmlReturn_t (*nvmlSystemGetDriverVersion_fn)(char *version, unsigned len);

#endif /* PB_VENDOR_NVML_H */
