/* scenic.h: the SCENIC runtime for C (libscenic_c, runtime/capi; docs/cpp.md).
 *
 * Objects are opaque pointers made by *_open / *_start and freed by *_close / *_stop (NULL is
 * accepted there). A function returns 0 (or a pointer) on success and -1 (or NULL) on failure;
 * scenic_last_error() then holds the runtime's message (per thread, until its next failure).
 * Strings are NUL-terminated UTF-8 and need live only for the call. Every check (names, widths,
 * readonly CSRs, the hot-swap rules) is the Rust runtime's.
 *
 * runtime/capi/tests/header.rs checks that this header declares exactly the library's functions.
 */
#ifndef SCENIC_H
#define SCENIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ScenicEmulator ScenicEmulator;
typedef struct ScenicDevice ScenicDevice;
typedef struct ScenicThread ScenicThread;

/* The message of the calling thread's last failure ("" if none). */
const char *scenic_last_error(void);

/* An emulated device in this process (no network ports), serving the map file map_path. */
ScenicEmulator *scenic_emulator_start(const char *map_path);
/* The name to open it with (valid while the emulator is). */
const char *scenic_emulator_device(const ScenicEmulator *emu);
void scenic_emulator_stop(ScenicEmulator *emu);

/* Opens "emu:NAME" (scenic nic up NAME) or a map path. */
ScenicDevice *scenic_device_open(const char *name);
void scenic_device_close(ScenicDevice *dev);

/* The paper's reconfigure_app: the package directory path into slot (a hitless swap when a unit
 * runs there, else a load). */
int scenic_reconfigure_app(const ScenicDevice *dev, uint8_t slot, const char *path);

/* The paper's ScenicThread(slot): it follows loads and swaps of the slot by anyone. */
ScenicThread *scenic_thread_open(const ScenicDevice *dev, uint8_t slot);
void scenic_thread_close(ScenicThread *thread);
int scenic_set_csr(const ScenicThread *thread, uint64_t value, uint32_t offset);
int scenic_get_csr(const ScenicThread *thread, uint32_t offset, uint64_t *value);
/* "remote_write", "remote_read", "remote_send": inputs the slot took (PKT_SEQ); any other op is
 * a slot register of device.md section 3.2 by name ("out_host_pkts", "switch_count", ...). */
int scenic_get_completed(const ScenicThread *thread, const char *op, uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* SCENIC_H */
