/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The ioctl ABI of /dev/scenicN (docs/device.md section 5.7, docs/kmod.md "The ABI").
 *
 * Shared by the kernel module and user space: scenic-runtime's tests compile this header and
 * compare every struct size, field offset and ioctl number with its Rust mirror
 * (runtime/src/kmod.rs), so a change here without the same change there fails the build.
 * Every struct is made of fixed-width fields with explicit padding: the same layout on every
 * 64-bit ABI, and no hole the kernel could leak.
 */
#ifndef SCENIC_ABI_H
#define SCENIC_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SCENIC_IOC_MAGIC 'S'

/* SCENIC_IOC_INFO: the device's identity, as the registers of section 2.2 hold it. */
struct scenic_info {
	__u64 bar_bytes;	/* BAR_BYTES */
	__u64 version;		/* VERSION: [16..32) major, [0..16) minor */
	__u64 features;		/* FEATURES */
	__u32 scu_slots;	/* SLOTS[0..8) */
	__u32 cc_slots;		/* SLOTS[8..16) */
	__u32 ports;		/* SLOTS[32..40) */
	__u32 minor;		/* N of /dev/scenicN and of the netdev scenicN */
	__u8 instance[8];	/* INSTANCE, NUL-padded ASCII */
};

/*
 * SCENIC_IOC_WAIT: sleep until one of `causes` (INT_CAUSE bits: 2 notification, 3 control
 * response; for `slot`) holds or `timeout_ns` passed; `seen` returns the causes that hold.
 */
struct scenic_wait {
	__u32 slot;
	__u32 causes;
	__u64 timeout_ns;
	__u32 seen;
	__u32 pad;
};

/*
 * SCENIC_IOC_SLOT_CMD: one SLOT_CMD (section 3.4) issued by the kernel, which picks the sequence
 * number and waits for the result: `op` the opcode, `arg` the 40-bit argument; `result` returns
 * SLOT_RESULT ([0..16) status, [16..48) detail, [48..64) seq).
 */
struct scenic_slot_cmd {
	__u32 slot;
	__u32 op;
	__u64 arg;
	__u64 result;
};

/*
 * SCENIC_IOC_STEER: one STEER_CMD (section 2.3) issued by the kernel under its steering lock:
 * STEER_KEY = key, STEER_VALUE = value, then the opcode; `result` returns STEER_RESULT and
 * `rd_key`/`rd_value` STEER_RD_KEY/STEER_RD_VALUE. Opcode SCENIC_STEER_SLOW_PATH (0x80) writes
 * SLOW_PATH_SLOT = value instead; `result` then holds 0 or the refusal code (E_STEER_SLOT).
 */
struct scenic_steer {
	__u32 op;
	__u32 pad;
	__u64 key;
	__u64 value;
	__u64 result;
	__u64 rd_key;
	__u64 rd_value;
};

#define SCENIC_STEER_SLOW_PATH 0x80

/*
 * SCENIC_IOC_MEM_REGISTER: pin `len` bytes of user memory at `addr` and map them for the
 * device's DMA (an SCU's host memory, F_STAGE_DMA images); returns `id` and the bus address of
 * the first segment in `dma_addr`, `segments` the number of DMA segments (1: contiguous for the
 * device). SCENIC_IOC_MEM_UNREGISTER: `id` alone; unmaps and unpins. Closing the file
 * unregisters everything it registered.
 */
struct scenic_mem {
	__u64 addr;
	__u64 len;
	__u64 dma_addr;
	__u32 id;
	__u32 segments;
};

#define SCENIC_IOC_INFO		_IOR(SCENIC_IOC_MAGIC, 1, struct scenic_info)
#define SCENIC_IOC_GRANT_SLOT	_IOW(SCENIC_IOC_MAGIC, 2, __u32)
#define SCENIC_IOC_WAIT		_IOWR(SCENIC_IOC_MAGIC, 3, struct scenic_wait)
#define SCENIC_IOC_RESET	_IO(SCENIC_IOC_MAGIC, 4)
#define SCENIC_IOC_SLOT_CMD	_IOWR(SCENIC_IOC_MAGIC, 5, struct scenic_slot_cmd)
#define SCENIC_IOC_STEER	_IOWR(SCENIC_IOC_MAGIC, 6, struct scenic_steer)
#define SCENIC_IOC_MEM_REGISTER	_IOWR(SCENIC_IOC_MAGIC, 7, struct scenic_mem)
#define SCENIC_IOC_MEM_UNREGISTER _IOW(SCENIC_IOC_MAGIC, 8, struct scenic_mem)

#endif /* SCENIC_ABI_H */
