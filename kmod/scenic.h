/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenic.h: the register map of docs/device.md (the offsets this driver uses) and the driver's
 * per-device state, shared by the files of the module:
 *   scenic_main.c    PCI probe/remove, identity checks, register helpers, commands
 *   scenic_netdev.c  the netdev: NAPI RX over the section 5.2 ring, TX ring, MTU, link, poll timer
 *   scenic_ethtool.c ethtool -S / -C / -i
 *   scenic_cdev.c    /dev/scenicN: mmap of the map (never ring memory), the ioctls of scenic_abi.h
 *   scenic_mem.c     host memory registration (pinning and DMA mapping for the device)
 *
 * Invariants: every register access is one aligned 64-bit readq/writeq (section 1.1); a ring
 * index is published only after a wmb() that orders the entry before it (section 1.3); the
 * device is refused unless MAGIC, the major VERSION and BAR_BYTES are the ones this driver speaks.
 */
#ifndef SCENIC_H
#define SCENIC_H

#include <linux/cdev.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/u64_stats_sync.h>
#include <linux/wait.h>

#ifndef CONFIG_64BIT
#error "SCENIC registers are 64-bit words accessed atomically (docs/device.md 1.3): 64-bit kernels only"
#endif

#define SCENIC_NAME "scenic"

/* Section 2.2: identity, status, control. */
#define SC_MAGIC		0x000
#define SC_VERSION		0x008
#define SC_SLOTS		0x010
#define SC_FEATURES		0x028
#define SC_STATUS		0x030
#define SC_ERROR		0x038
#define SC_RESET		0x048
#define SC_HOST_FENCE		0x050
#define SC_DEV_FENCE		0x058
#define SC_POLL_NS		0x060
#define SC_BAR_BYTES		0x070
#define SC_HEARTBEAT		0x078
#define SC_RESET_RESULT		0x080
#define SC_INSTANCE		0x088

#define SC_MAGIC_VALUE		0x000043494E454353ULL	/* "SCENIC\0\0" */
#define SC_MAJOR		1
#define SC_MAP_BYTES		0x2000000ULL
#define SC_GLOBAL_BYTES		0x10000ULL
#define SC_STATUS_READY		BIT_ULL(0)
#define SC_STATUS_FATAL		BIT_ULL(2)
#define SC_RESET_OPCODE		0x52
#define SC_RESET_KEY		0x455345ULL

#define SC_F_RING_DEVMEM	BIT_ULL(0)
#define SC_F_RING_HOSTMEM	BIT_ULL(1)
#define SC_F_MSIX		BIT_ULL(2)

/* Section 2.3: steering. */
#define SC_SLOW_PATH_SLOT	0x1008
#define SC_STEER_KEY		0x1010
#define SC_STEER_VALUE		0x1018
#define SC_STEER_CMD		0x1020
#define SC_STEER_RESULT		0x1028
#define SC_STEER_RD_KEY		0x1030
#define SC_STEER_RD_VALUE	0x1038
#define SC_E_STEER_SLOT		0x0020

/* Section 2.4: port p's block. */
#define SC_PORT(p)		(0x2000 + 0x100 * (p))
#define SC_PORT_RX_PKTS		0x00
#define SC_PORT_RX_DROPS	0x10
#define SC_PORT_TX_PKTS		0x18
#define SC_PORT_TX_DROPS	0x28
#define SC_PORT_MAC		0x40
#define SC_PORT_LINK		0x48

/* Section 5.1: host rings. */
#define SC_RING_CTRL		0x3000
#define SC_RING_MEM_OFFSET	0x3008
#define SC_RING_MEM_BYTES	0x3010
#define SC_BUF_BYTES		0x3018
#define SC_MTU_MAX		0x3020
#define SC_MTU			0x3028
#define SC_RX_BASE		0x3030
#define SC_RX_SIZE		0x3038
#define SC_RX_PROD		0x3040
#define SC_RX_CONS		0x3048
#define SC_TX_BASE		0x3050
#define SC_TX_SIZE		0x3058
#define SC_TX_PROD		0x3060
#define SC_TX_CONS		0x3068
#define SC_HOST_RX_PKTS		0x3070
#define SC_HOST_RX_BYTES	0x3078
#define SC_HOST_RX_DROPS	0x3080
#define SC_HOST_TX_PKTS		0x3088
#define SC_HOST_TX_BYTES	0x3090
#define SC_HOST_TX_DROPS	0x3098
#define SC_RING_RX_EN		BIT_ULL(0)
#define SC_RING_TX_EN		BIT_ULL(1)

/* Section 5.5: interrupts and moderation. */
#define SC_RX_COAL_NS		0x30B8
#define SC_RX_COAL_COUNT	0x30C0
#define SC_TX_COAL_COUNT	0x30C8

/* Section 3: slot blocks. */
#define SC_SLOT_BASE		0x100000ULL
#define SC_SLOT_STRIDE		0x40000ULL
#define SC_SLOT_BLOCKS		18
#define SC_SLOT_END		(SC_SLOT_BASE + SC_SLOT_BLOCKS * SC_SLOT_STRIDE)
#define SC_SLOT(k)		(SC_SLOT_BASE + (u64)(k) * SC_SLOT_STRIDE)
#define SC_SLOT_INFO		0x000
#define SC_SLOT_CMD		0x010
#define SC_SLOT_RESULT		0x018
#define SC_CQ_RSP_PROD		0x318
#define SC_CQ_RSP_CONS		0x320
#define SC_NQ_PROD		0x388
#define SC_NQ_CONS		0x390

/* Tags and commands of the host rings (sections 5.2, 5.3). */
#define SC_TAG_BYTES		16
#define SC_TAG_VALID		0x1
#define SC_TX_SLOT_DIRECT	0xFF

/* Driver limits. */
#define SC_MAX_DEVICES		8
#define SC_RING_ENTRIES		512
#define SC_POLL_MIN_NS		10000
#define SC_CMD_TIMEOUT_MS	2000
#define SC_MEM_MAX_REGIONS	64
#define SC_MEM_MAX_BYTES	(256ULL << 20)

struct scenic_stats {
	u64 packets;
	u64 bytes;
	u64 drops;
	struct u64_stats_sync syncp;
};

/* Driver-side counters shown by ethtool -S besides the device's registers. */
struct scenic_sw_stats {
	u64 rx_bad_tag;		/* a VALID buffer with len 0 or too long: a device fault */
	u64 rx_alloc_fail;
	u64 tx_ring_full;
	u64 poll_timer;		/* hrtimer expiries that scheduled NAPI */
	u64 napi_polls;
};

struct scenic_dev {
	struct pci_dev *pdev;
	void __iomem *bar;
	resource_size_t bar_phys;
	resource_size_t bar_len;
	int minor;
	u64 features;
	u32 scu_slots;
	u32 cc_slots;
	u32 ports;
	u64 buf_bytes;
	u64 mtu_max;
	bool gone;		/* removed: file operations fail with -ENODEV */
	struct rw_semaphore op_lock;	/* ioctls hold it shared; remove sets `gone` holding it */

	/* Serialises kernel-issued commands and their sequence numbers. */
	struct mutex cmd_lock;
	u16 seq;

	/* The netdev and its rings. */
	struct net_device *netdev;
	struct napi_struct napi;
	struct hrtimer poll_timer;
	ktime_t poll_period;
	bool polling;		/* the timer may re-arm: false while the netdev is down */
	void __iomem *ring_mem;
	u32 rx_size, tx_size;
	u32 rx_cons;		/* our RX_CONS (free-running) */
	u32 tx_prod;		/* our TX_PROD (free-running), under the netdev's TX lock */
	u64 rx_base, tx_base;
	struct scenic_stats rx_stats, tx_stats;
	struct scenic_sw_stats sw;

	/* The char device and its open files (for unmapping them at remove). */
	struct cdev *cdev;
	struct device *chardev;
	struct mutex files_lock;
	struct list_head files;
	struct kref ref;
};

/* One open file of /dev/scenicN. */
struct scenic_file {
	struct scenic_dev *sd;
	struct list_head node;		/* in sd->files */
	struct file *file;
	bool admin;			/* opened with CAP_NET_ADMIN */
	u32 granted;			/* bit k: slot block k may be mapped */
	struct mutex mem_lock;
	struct list_head mems;		/* registered host memory */
	u32 next_mem_id;
	u64 mem_bytes;
};

/* scenic_main.c */
static inline u64 sc_rd(struct scenic_dev *sd, u64 off)
{
	return readq(sd->bar + off);
}

static inline void sc_wr(struct scenic_dev *sd, u64 off, u64 val)
{
	writeq(val, sd->bar + off);
}

/* The netdev's private area holds a pointer to its scenic_dev. */
static inline struct scenic_dev *netdev_priv_sd(struct net_device *dev)
{
	return *(struct scenic_dev **)netdev_priv(dev);
}

int scenic_fence(struct scenic_dev *sd);
int scenic_command(struct scenic_dev *sd, u64 cmd_off, u64 res_off, u8 op, u64 arg, u64 *result);
bool scenic_alive(struct scenic_dev *sd);
void scenic_dev_put(struct scenic_dev *sd);

/* scenic_netdev.c */
int scenic_netdev_create(struct scenic_dev *sd);
void scenic_netdev_destroy(struct scenic_dev *sd);
int scenic_netdev_reset(struct scenic_dev *sd);
void scenic_set_poll_period(struct scenic_dev *sd, u64 ns);
extern const struct ethtool_ops scenic_ethtool_ops;

/* scenic_cdev.c */
int scenic_cdev_init(void);
void scenic_cdev_exit(void);
int scenic_cdev_add(struct scenic_dev *sd);
void scenic_cdev_remove(struct scenic_dev *sd);

/* scenic_mem.c */
struct scenic_mem;
int scenic_mem_register(struct scenic_file *f, struct scenic_mem *req);
int scenic_mem_unregister(struct scenic_file *f, u32 id);
void scenic_mem_release_all(struct scenic_file *f);

#endif /* SCENIC_H */
