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

#include <stddef.h>
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
/* The same with its datapath running over `ports` (1 to 4) network ports and a host side, each an
 * in-process wire: frames reach loaded units without root. */
ScenicEmulator *scenic_emulator_start_wired(const char *map_path, uint8_t ports);
/* Puts the len bytes at frame (Ethernet, no FCS, 1 to 16368 bytes) on network port `port`: they
 * arrive at the NIC as from the network. Waits up to 1 s for room on a full wire. */
int scenic_emulator_send(const ScenicEmulator *emu, int port, const uint8_t *frame, size_t len);
/* The next frame the NIC sent to the host (port -1) or out of network port `port`, waiting up to
 * timeout_ns: copied to buf (cap bytes of room), its length in *len; *len is 0 when none came. A
 * frame longer than cap fails with its length in *len and is kept for the next call. */
int scenic_emulator_receive(const ScenicEmulator *emu, int port, uint64_t timeout_ns, uint8_t *buf,
                            size_t cap, size_t *len);
/* The name to open it with (valid while the emulator is). */
const char *scenic_emulator_device(const ScenicEmulator *emu);
void scenic_emulator_stop(ScenicEmulator *emu);

/* Opens "emu:NAME" (scenic nic up NAME) or a map path. */
ScenicDevice *scenic_device_open(const char *name);
void scenic_device_close(ScenicDevice *dev);
/* The slot the slow path goes through (device.md section 2.3); slot < 0: straight to the host. */
int scenic_device_set_slow_path(const ScenicDevice *dev, int slot);

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

/* By name, as the package's manifest names them (docs/cpp.md, "By name"). Table keys and action
 * arguments are text in the STF `add` syntax ("10.0.0.0/8", "_", "0x0800&&&0xff00", "7000..=7099",
 * a number), keys in the table's key order; arrays are a pointer and a count (NULL with 0). */
int scenic_csr_get(const ScenicThread *thread, const char *name, uint64_t *value);
int scenic_csr_set(const ScenicThread *thread, const char *name, uint64_t value);
/* priority < 0: none. The entry's handle goes to *handle. */
int scenic_table_add(const ScenicThread *thread, const char *table, const char *const *keys,
                     size_t nkeys, const char *action, const char *const *args, size_t nargs,
                     int64_t priority, uint32_t *handle);
int scenic_table_modify(const ScenicThread *thread, const char *table, uint32_t handle,
                        const char *action, const char *const *args, size_t nargs);
int scenic_table_remove(const ScenicThread *thread, const char *table, uint32_t handle);
int scenic_table_clear(const ScenicThread *thread, const char *table);
int scenic_table_set_default(const ScenicThread *thread, const char *table, const char *action,
                             const char *const *args, size_t nargs);
int scenic_counter_read(const ScenicThread *thread, const char *name, uint64_t index,
                        uint64_t *packets, uint64_t *bytes);
/* index < 0: every cell. */
int scenic_counter_reset(const ScenicThread *thread, const char *name, int64_t index);
/* 64-bit keys and values; a wider value is refused. *found is 1 when the key is there, else 0. */
int scenic_map_get(const ScenicThread *thread, const char *name, uint64_t key, uint64_t *value,
                   int *found);
int scenic_map_set(const ScenicThread *thread, const char *name, uint64_t key, uint64_t value);
int scenic_map_remove(const ScenicThread *thread, const char *name, uint64_t key, int *removed);

/* A notification of docs/device.md section 3.7. */
typedef struct ScenicNotification {
    uint64_t seq;         /* per-slot number; a gap is a loss */
    uint64_t time_ns;     /* NOW_NS when the unit raised it */
    uint64_t lost_before; /* records lost between the previous one of this call and this one */
    uint32_t value;
    uint8_t target;       /* 0 host, 1 Arm */
    uint8_t slot;
    uint8_t bank;
    uint8_t flags;        /* bit 0 FROM_SHADOW */
} ScenicNotification;

/* Up to max notifications of the slot into out, waiting up to timeout_ns for the first; their
 * number in *count (0 when none came). */
int scenic_notifications(const ScenicThread *thread, uint64_t timeout_ns, ScenicNotification *out,
                         size_t max, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* SCENIC_H */
