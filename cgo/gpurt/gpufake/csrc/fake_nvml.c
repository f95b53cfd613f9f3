/*
 * fake_nvml.c — a stand-in for libnvidia-ml.so.1 of NVML 13, or, built with
 * -DPB_FAKE_NVML_OLD, of a driver older than nvmlDeviceGetTemperatureV.
 * Environment:
 *   PB_FAKE_NVML_SM_MHZ   current SM clock (default 1980)
 *   PB_FAKE_NVML_REASONS  current clocks event reasons (default 0)
 * It exports both the current and the older name of the reasons call. The
 * NVML 13 build is stricter than NVML 13: its deprecated
 * nvmlDeviceGetTemperature answers NVML_ERROR_DEPRECATED, so a temperature
 * read proves the versioned call was made, and that call checks the
 * struct's version.
 */
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static int inits;
static int dev_tag;

static unsigned envu(const char *name, unsigned def)
{
	const char *v = getenv(name);
	return v != NULL && *v != '\0' ? (unsigned)strtoul(v, NULL, 0) : def;
}

EXPORT int nvmlInit_v2(void)
{
	inits++;
	return 0;
}

EXPORT int nvmlShutdown(void)
{
	if (inits == 0)
		return 1; /* NVML_ERROR_UNINITIALIZED */
	inits--;
	return 0;
}

EXPORT const char *nvmlErrorString(int r)
{
	switch (r) {
	case 0:
		return "Success";
	case 1:
		return "Uninitialized";
	case 6:
		return "Not Found";
	case 25:
		return "Argument version mismatch";
	case 26:
		return "Deprecated";
	}
	return "Unknown Error";
}

EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
	if (inits == 0)
		return 1;
	if (strncmp(bus, "0000:", 5) != 0)
		return 6;
	*dev = &dev_tag;
	return 0;
}

EXPORT int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz)
{
	if (dev != &dev_tag)
		return 2;
	switch (type) {
	case 0:
	case 1:
		*mhz = envu("PB_FAKE_NVML_SM_MHZ", 1980);
		return 0;
	case 2:
		*mhz = 2619;
		return 0;
	}
	return 2;
}

EXPORT int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned *mhz)
{
	if (dev != &dev_tag)
		return 2;
	*mhz = type == 2 ? 2619 : 1980;
	return 0;
}

EXPORT int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *c)
{
	if (dev != &dev_tag || sensor != 0)
		return 2;
#ifdef PB_FAKE_NVML_OLD
	*c = 65;
	return 0;
#else
	(void)c;
	return 26; /* NVML_ERROR_DEPRECATED */
#endif
}

#ifndef PB_FAKE_NVML_OLD
typedef struct {
	unsigned version;
	int sensor;
	int temperature;
} temperature_v1;

EXPORT int nvmlDeviceGetTemperatureV(void *dev, temperature_v1 *t)
{
	if (dev != &dev_tag || t == NULL || t->sensor != 0)
		return 2;
	if (t->version != (sizeof(temperature_v1) | 1u << 24))
		return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
	t->temperature = 65;
	return 0;
}
#endif

EXPORT int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
	if (dev != &dev_tag)
		return 2;
	*mw = 350000;
	return 0;
}

EXPORT int nvmlDeviceGetCurrentClocksEventReasons(void *dev, unsigned long long *r)
{
	if (dev != &dev_tag)
		return 2;
	*r = envu("PB_FAKE_NVML_REASONS", 0);
	return 0;
}

EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *r)
{
	return nvmlDeviceGetCurrentClocksEventReasons(dev, r);
}

EXPORT int nvmlSystemGetDriverVersion(char *v, unsigned len)
{
#ifdef PB_FAKE_NVML_OLD
	strncpy(v, "535.104.05-fake", len);
#else
	strncpy(v, "580.65.06-fake", len);
#endif
	if (len > 0)
		v[len - 1] = '\0';
	return 0;
}
